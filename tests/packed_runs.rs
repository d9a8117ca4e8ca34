//! Packed run folders (`akushu runs pack|unpack`): a folder's `sgf/` as one deterministic
//! `sgf.tar.xz` and back, byte for byte; readers (`rate`, `match merge`, `analyze`) read
//! the packed form as they read the loose one; a resume refuses a packed folder, naming
//! the command that unpacks it, and leaves it as it was.

use std::collections::BTreeMap;
use std::path::Path;

mod common;
use common::{akushu, s, scratch};

/// Every file under `dir` by its path relative to `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A short match of two cheap engines in `out`, with `more` arguments.
fn play(out: &Path, games: &str, more: &[&str]) -> (bool, String) {
    let out = s(out);
    let mut args = vec![
        "match",
        "--black",
        "random",
        "--white",
        "uct:sims=4",
        "--games",
        games,
        "--seed",
        "7",
        "--out",
        &out,
    ];
    args.extend_from_slice(more);
    akushu(&args)
}

/// A folder made here, with bytes an archive could get wrong (no final newline, CRLF, an
/// empty file, bytes that are not UTF-8), packs into `sgf.tar.xz` beside the files that stay
/// loose; unpacked (by akushu and by GNU tar) it is the very files, and packing it again
/// gives the same archive bytes.
#[test]
fn a_packed_folder_unpacks_to_the_very_files_and_packs_to_the_same_bytes() {
    let dir = scratch("packed", "roundtrip");
    let run = dir.join("run");
    std::fs::create_dir_all(run.join("sgf")).unwrap();
    std::fs::write(run.join("games.csv"), "game,result\n1,B+R\n").unwrap();
    std::fs::write(run.join("match.toml"), "[config]\ngames = 3\n").unwrap();
    std::fs::write(run.join("summary.md"), "games: 3\n").unwrap();
    std::fs::write(run.join("sgf/game-00001.sgf"), "(;SZ[9];B[ee])").unwrap();
    std::fs::write(run.join("sgf/game-00002.sgf"), "(;SZ[9]\r\n;B[cc]\r\n)\r\n").unwrap();
    std::fs::write(run.join("sgf/game-00003.sgf"), b"(;SZ[9]C[\xff\xfe\x00])\n").unwrap();
    std::fs::write(run.join("sgf/empty.sgf"), "").unwrap();
    let before = files(&run);

    let (ok, text) = akushu(&["runs", "pack", &s(&run)]);
    assert!(
        ok && text.contains("4 files packed into sgf.tar.xz"),
        "{text}"
    );
    assert!(!run.join("sgf").exists(), "sgf/ left after packing");
    let packed = files(&run);
    let names: Vec<&str> = packed.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["games.csv", "match.toml", "sgf.tar.xz", "summary.md"]
    );
    let archive = packed["sgf.tar.xz"].clone();

    // Packed twice: already packed, nothing changed.
    let (ok, text) = akushu(&["runs", "pack", &s(&run)]);
    assert!(ok && text.contains("already packed"), "{text}");
    assert_eq!(files(&run), packed);

    let (ok, text) = akushu(&["runs", "unpack", &s(&run)]);
    assert!(ok && text.contains("4 files unpacked"), "{text}");
    assert_eq!(files(&run), before, "unpacking changed names or bytes");

    // The same files pack into the same bytes, in another folder too.
    let copy = dir.join("copy");
    std::fs::create_dir_all(copy.join("sgf")).unwrap();
    for (name, bytes) in &before {
        std::fs::write(copy.join(name), bytes).unwrap();
    }
    let (ok, text) = akushu(&["runs", "pack", &s(&run), &s(&copy)]);
    assert!(ok, "{text}");
    assert_eq!(std::fs::read(run.join("sgf.tar.xz")).unwrap(), archive);
    assert_eq!(std::fs::read(copy.join("sgf.tar.xz")).unwrap(), archive);

    // GNU tar reads it as a plain archive: the same files, owner 0/0, mtime 0.
    let by_tar = dir.join("by-tar");
    std::fs::create_dir_all(&by_tar).unwrap();
    let tar = |args: &[&str]| {
        std::process::Command::new("tar")
            .args(args)
            .arg(run.join("sgf.tar.xz"))
            .args(["-C", &s(&by_tar)])
            .output()
    };
    if let (Ok(x), Ok(t)) = (tar(&["-xJf"]), tar(&["--numeric-owner", "-tvJf"]))
        && x.status.success()
    {
        let sgfs: BTreeMap<String, Vec<u8>> = before
            .into_iter()
            .filter(|(k, _)| k.starts_with("sgf/"))
            .collect();
        assert_eq!(files(&by_tar), sgfs);
        let listing = String::from_utf8_lossy(&t.stdout);
        assert_eq!(listing.lines().count(), 4, "{listing}");
        for line in listing.lines() {
            assert!(
                line.starts_with("-rw-r--r-- 0/0") && line.contains("1970-01-01 00:00"),
                "{line}"
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `rate` reads a packed folder's games from its archive: the same table as loose, the
/// repeated game (found only by reading the SGFs) included. `dataset build` names its games
/// as loose, `analyze` reads a game by its loose path and `match merge` takes a packed
/// folder as a shard.
#[test]
fn rate_dataset_merge_and_analyze_read_packed_folders_as_loose_ones() {
    let dir = scratch("packed", "readers");
    let run = dir.join("run");
    let (ok, text) = play(&run, "3", &[]);
    assert!(ok, "{text}");
    // Game 3 made a copy of game 1: only the SGFs say so.
    std::fs::copy(
        run.join("sgf/game-00001.sgf"),
        run.join("sgf/game-00003.sgf"),
    )
    .unwrap();
    let (ok, loose) = akushu(&["rate", &s(&run)]);
    assert!(
        ok && loose.contains("Repeated games (of 3 compared): 1 identical"),
        "{loose}"
    );
    let (ok, analyzed_loose) = akushu(&["analyze", "--sgf", &s(&run.join("sgf/game-00001.sgf"))]);
    assert!(ok, "{analyzed_loose}");

    let dataset = |out: &str| {
        let out = dir.join(out);
        let (ok, text) = akushu(&[
            "dataset",
            "build",
            "--sgf",
            &s(&run),
            "--out",
            &s(&out),
            "--quiet",
        ]);
        assert!(ok, "{text}");
        std::fs::read_to_string(out.join("games.csv")).unwrap()
    };
    let built_loose = dataset("ds-loose");

    let (ok, text) = akushu(&["runs", "pack", &s(&run)]);
    assert!(ok, "{text}");
    // The archive's games go by their loose paths: the dataset's `source` column included.
    assert_eq!(dataset("ds-packed"), built_loose);
    let (ok, packed) = akushu(&["rate", &s(&run)]);
    assert!(ok, "{packed}");
    assert_eq!(packed, loose, "rate reads a packed folder otherwise");
    let (ok, analyzed) = akushu(&["analyze", "--sgf", &s(&run.join("sgf/game-00001.sgf"))]);
    assert!(ok && analyzed == analyzed_loose, "{analyzed}");

    let merged = dir.join("merged");
    let (ok, text) = akushu(&["match", "merge", "--out", &s(&merged), &s(&run)]);
    assert!(ok, "{text}");
    for g in 1..=3 {
        let name = format!("sgf/game-{g:05}.sgf");
        let from_archive = files(&merged)[&name].clone();
        let (ok, _) = akushu(&["runs", "unpack", &s(&run)]);
        assert!(ok);
        assert_eq!(
            from_archive,
            std::fs::read(run.join(&name)).unwrap(),
            "{name}"
        );
        let (ok, _) = akushu(&["runs", "pack", &s(&run)]);
        assert!(ok);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A match extended on a packed folder is refused with the command that unpacks it, the
/// folder left as it was; unpacked, the same command resumes it.
#[test]
fn a_packed_match_is_not_resumed_until_unpacked() {
    let dir = scratch("packed", "resume");
    let run = dir.join("run");
    let (ok, text) = play(&run, "2", &[]);
    assert!(ok, "{text}");
    let (ok, text) = akushu(&["runs", "pack", &s(&run)]);
    assert!(ok, "{text}");
    let packed = files(&run);

    let (ok, text) = play(&run, "4", &["--extend"]);
    assert!(
        !ok && text.contains("packed") && text.contains(&format!("akushu runs unpack {}", s(&run))),
        "{text}"
    );
    assert_eq!(files(&run), packed, "a refused resume changed the folder");

    let (ok, text) = akushu(&["runs", "unpack", &s(&run)]);
    assert!(ok, "{text}");
    let (ok, text) = play(&run, "4", &["--extend"]);
    assert!(ok && text.contains("2 games already finished"), "{text}");
    let rows = std::fs::read_to_string(run.join("games.csv")).unwrap();
    assert_eq!(rows.lines().count(), 5, "{rows}");
    std::fs::remove_dir_all(dir).unwrap();
}
