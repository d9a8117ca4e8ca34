//! `scripts/akushu_dataset.py`, the Python reader of datasets, against akushu's own decoder
//! (the records `dataset show` prints): every field of every record of a human (version 1)
//! and a self-play (version 2) dataset, and the refusal of a corrupt file.
//!
//! Needs python3 with numpy (`sh scripts/install-python.sh`), so it is marked ignored: a
//! machine without numpy reports it as not run rather than passed. `cargo test --release --
//! --ignored` runs it; there, without numpy it says why and skips, and with
//! `AKUSHU_REQUIRE_PYTHON` set (`.ci/run` installs numpy) it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use akushu::arena::selfplay::GameRules;
use akushu::arena::selfplay_run::{
    SelfplayConfig, SelfplayDatasetConfig, build_dataset, run_selfplay,
};
use akushu::dataset::format::SplitWriter;
use akushu::dataset::{MappedSplit, NO_POINT, Position, Split};
use serde_json::Value;

mod common;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("akushu-py-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/akushu_dataset.py")
}

/// Record `index` of `split` as the Python reader prints it.
fn python_record(dir: &Path, split: Split, index: usize) -> Result<Value, String> {
    let out = Command::new("python3")
        .arg(script())
        .arg(dir)
        .args(["--split", split.name(), "--index", &index.to_string()])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap())
}

/// Every field of `p` against the reader's JSON record.
fn assert_same(p: &Position, v: &Value, what: &str) {
    let r = &v["record"];
    let list = |k: &str| -> Vec<i64> {
        r[k].as_array()
            .unwrap_or_else(|| panic!("{what}: no {k}"))
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect()
    };
    let num = |k: &str| r[k].as_i64().unwrap_or_else(|| panic!("{what}: no {k}"));
    assert_eq!(
        list("cells"),
        p.cells.map(i64::from).to_vec(),
        "{what}: cells"
    );
    assert_eq!(num("to_move"), i64::from(p.to_move), "{what}");
    assert_eq!(num("played"), i64::from(p.played), "{what}");
    assert_eq!(num("ko"), i64::from(p.ko), "{what}");
    assert_eq!(num("move_number"), i64::from(p.move_number), "{what}");
    assert_eq!(
        list("last_moves"),
        p.last_moves.map(i64::from).to_vec(),
        "{what}"
    );
    assert_eq!(num("winner"), i64::from(p.winner), "{what}");
    assert_eq!(num("black_rank"), i64::from(p.black_rank), "{what}");
    assert_eq!(num("white_rank"), i64::from(p.white_rank), "{what}");
    assert_eq!(num("game"), i64::from(p.game), "{what}");
    match &p.search {
        None => assert!(
            r.get("visits").is_none(),
            "{what}: a version-1 record has no visits"
        ),
        Some(t) => {
            assert_eq!(
                list("visits"),
                t.visits.map(i64::from).to_vec(),
                "{what}: visits"
            );
            assert_eq!(num("simulations"), i64::from(t.simulations), "{what}");
            let f = |k: &str| r[k].as_f64();
            assert_eq!(
                f("value").map(|x| x as f32),
                (!t.value.is_nan()).then_some(t.value)
            );
            assert_eq!(
                f("score").map(|x| x as f32),
                (!t.score.is_nan()).then_some(t.score)
            );
            assert_eq!(r["ownership_known"].as_bool(), Some(t.ownership.is_some()));
            let own = t.ownership.unwrap_or([0; 81]).map(i64::from).to_vec();
            assert_eq!(list("ownership"), own, "{what}: ownership");
        }
    }
}

fn check_every_record(dir: &Path) -> usize {
    let mut n = 0;
    for split in Split::ALL {
        let mapped = MappedSplit::open(dir, split).unwrap();
        for i in 0..mapped.len() {
            let v = python_record(dir, split, i).unwrap();
            assert_eq!(v["positions"].as_u64(), Some(mapped.len() as u64));
            assert_same(
                &mapped.get(i).unwrap(),
                &v,
                &format!("{} {i}", split.name()),
            );
            n += 1;
        }
    }
    n
}

#[test]
#[ignore = "needs python3 with numpy (sh scripts/install-python.sh): cargo test --release -- --ignored"]
fn the_python_reader_reads_what_akushu_writes() {
    if !common::python_with_numpy("the Python reader test") {
        return;
    }
    // Version 1: hand-made records with every field away from its default.
    let human = scratch("human");
    for split in Split::ALL {
        let mut w = SplitWriter::create(&human, split).unwrap();
        for i in 0..3u32 {
            let mut cells = [0u8; 81];
            cells[(i * 7) as usize] = 1;
            cells[(i * 7 + 40) as usize] = 2;
            w.push(&Position {
                cells,
                to_move: 1 + (i % 2) as u8,
                played: 80 - i as u8,
                move_number: 300 + i as u16,
                last_moves: [i as u8, 81, NO_POINT, 5],
                ko: if i == 1 { 33 } else { NO_POINT },
                winner: (i % 3) as u8,
                black_rank: -3 - i as i8,
                white_rank: i8::MIN,
                game: 70_000 + i,
                search: None,
                teacher: None,
            })
            .unwrap();
        }
        w.finish(3).unwrap();
    }
    assert_eq!(check_every_record(&human), 9);

    // Version 2: a few self-play games.
    let sp = scratch("selfplay");
    let config = SelfplayConfig {
        engines: vec!["uct:sims=20".into()],
        games: 3,
        seed: 4,
        rules: GameRules {
            max_moves: 40, // capped games: records without ownership too
            ..GameRules::default()
        },
        jobs: 1,
        shard: None,
    };
    run_selfplay(&config, &sp.join("run"), false).unwrap();
    let cfg = SelfplayDatasetConfig {
        seed: 1,
        validation_fraction: 0.0,
        test_fraction: 0.0,
        include_passes: true,
    };
    build_dataset(&[sp.join("run")], &cfg, &sp.join("data"), false).unwrap();
    assert!(check_every_record(&sp.join("data")) > 20);

    // A flipped byte: the reader refuses the file, as akushu does.
    let file = human.join("test.akd");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[70] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let err = python_record(&human, Split::Test, 0).unwrap_err();
    assert!(err.contains("checksum mismatch"), "{err}");
    for d in [human, sp] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A one-record split of `split` in `dir` whose record is `record` (40 bytes), with the
/// header's CRC-32 made right for it: only the record itself can be wrong.
fn split_with_record(dir: &Path, split: Split, record: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut w = SplitWriter::create(dir, split).unwrap();
    w.push(&good_position()).unwrap();
    w.finish(1).unwrap();
    let file = akushu::dataset::split_path(dir, split);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[64..].copy_from_slice(record);
    let crc = crc32fast::hash(&bytes[64..]);
    bytes[28..32].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&file, bytes).unwrap();
}

/// A position akushu writes and reads: a black and a white stone, black to play.
fn good_position() -> Position {
    let mut cells = [0u8; 81];
    cells[40] = 1;
    cells[50] = 2;
    Position {
        cells,
        to_move: 1,
        played: 30,
        move_number: 3,
        last_moves: [50, 40, NO_POINT, NO_POINT],
        ko: NO_POINT,
        winner: 1,
        black_rank: 1,
        white_rank: 1,
        game: 0,
        search: None,
        teacher: None,
    }
}

/// A change made to a record's bytes.
type Edit = fn(&mut [u8]);

/// The reader refuses every record akushu's decoder refuses (the CRC fixed up, so only the
/// record is wrong), naming the file, the record and the field; an empty split reads as
/// empty arrays; a split copied in from another dataset or format version is named so.
#[test]
#[ignore = "needs python3 with numpy (sh scripts/install-python.sh): cargo test --release -- --ignored"]
fn the_python_reader_refuses_what_akushu_refuses() {
    if !common::python_with_numpy("the Python reader's refusals") {
        return;
    }
    let dir = scratch("refusals");
    let good = akushu::dataset::format::encode(&good_position());
    let edits: [(&str, Edit, &str); 5] = [
        ("cell 3", |r| r[0] |= 3, "cell 0 is 3"),
        ("move 200", |r| r[22] = 200, "played 200"),
        ("side to move 7", |r| r[21] = 7, "to_move 7"),
        (
            // Black at A9 (point 0) with white at B9 (1) and A8 (9): no liberty.
            "a stone without liberties",
            |r| {
                r[0] |= 1 | (2 << 2);
                r[2] |= 2 << 2;
            },
            "no liberties",
        ),
        (
            "played on a stone",
            |r| r[22] = 40,
            "played point 40 is occupied",
        ),
    ];
    for (what, edit, says) in edits {
        let mut record = good.to_vec();
        edit(&mut record);
        assert!(
            akushu::dataset::format::decode(&record).is_err(),
            "{what}: akushu refuses it too"
        );
        let d = dir.join(what.replace(' ', "-"));
        split_with_record(&d, Split::Train, &record);
        let err = python_record(&d, Split::Train, 0).unwrap_err();
        assert!(
            err.contains("train.akd") && err.contains("record 0") && err.contains(says),
            "{what}: {err}"
        );
    }

    // An empty split: empty arrays, not a reshape error.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    SplitWriter::create(&empty, Split::Test)
        .unwrap()
        .finish(0)
        .unwrap();
    let code = format!(
        "import sys; sys.path.insert(0, {:?}); import akushu_dataset as ad; \
         d = ad.read_split({:?}, 'test'); print(len(d['played']), d['cells'].shape)",
        script().parent().unwrap().display().to_string(),
        empty.display().to_string()
    );
    assert_eq!(common::python(&["-c", &code]).trim(), "0 (0, 81)");

    // A split copied in from another dataset: its header is not what the manifest records.
    let other = dir.join("other");
    split_with_record(&other, Split::Train, &good);
    let manifest = serde_json::json!({
        "format_version": 1,
        "splits": {"train": {"games": 1, "positions": 2, "crc32": 7}},
    });
    std::fs::write(other.join("manifest.json"), manifest.to_string()).unwrap();
    let err = python_record(&other, Split::Train, 0).unwrap_err();
    assert!(err.contains("another dataset"), "{err}");
    let manifest = serde_json::json!({"format_version": 2, "splits": {}});
    std::fs::write(other.join("manifest.json"), manifest.to_string()).unwrap();
    let err = python_record(&other, Split::Train, 0).unwrap_err();
    assert!(err.contains("another format version"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
