//! Builds datasets from the SGF fixtures (as a folder, a `.tar` and a `.tar.gz`), reads
//! them back, and re-derives every stored position from the moves with the rules core.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use akushu::dataset::build::{BuildConfig, Manifest, build};
use akushu::dataset::format::{self, MANIFEST_FILE};
use akushu::dataset::{MappedSplit, NO_POINT, Position, Split, read_split};
use akushu::rules::{Board, Color, Game, Move};
use akushu::sgf::{self, GameRecord, ParseConfig};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-rt-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Packs the top-level fixture `.sgf` files into `dir/fx.tar` and `dir/fx.tar.gz`.
fn make_archives(dir: &Path) -> (PathBuf, PathBuf) {
    let mut names: Vec<String> = fs::read_dir(fixtures())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sgf"))
        .collect();
    names.sort();
    let tar_path = dir.join("fx.tar");
    let gz_path = dir.join("fx.tar.gz");
    let fill = |b: &mut tar::Builder<Box<dyn std::io::Write>>| {
        for n in &names {
            b.append_path_with_name(fixtures().join(n), format!("fx/{n}"))
                .unwrap();
        }
        b.finish().unwrap();
    };
    let plain: Box<dyn std::io::Write> = Box::new(fs::File::create(&tar_path).unwrap());
    fill(&mut tar::Builder::new(plain));
    let gz: Box<dyn std::io::Write> = Box::new(flate2::write::GzEncoder::new(
        fs::File::create(&gz_path).unwrap(),
        flate2::Compression::fast(),
    ));
    fill(&mut tar::Builder::new(gz));
    (tar_path, gz_path)
}

fn config(inputs: Vec<PathBuf>) -> BuildConfig {
    BuildConfig {
        inputs,
        threads: 1,
        validation_fraction: 0.25,
        test_fraction: 0.25,
        ..BuildConfig::default()
    }
}

/// The record a `games.csv` row points at, re-read from the fixture folder.
fn reread(id: &str, source: &str) -> GameRecord {
    let member = source.rsplit('!').next().unwrap();
    let (file, line) = match member.rsplit_once(".sgfs:") {
        Some((f, l)) => (format!("{f}.sgfs"), Some(l.parse::<usize>().unwrap())),
        None => (member.to_string(), None),
    };
    let name = Path::new(&file)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let path = fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .chain(
            fixtures()
                .join("nested")
                .read_dir()
                .unwrap()
                .map(|e| e.unwrap().path()),
        )
        .find(|p| p.file_name().unwrap().to_string_lossy() == name)
        .unwrap_or_else(|| panic!("fixture for {source}"));
    let mut bytes = fs::read(path).unwrap();
    if let Some(l) = line {
        bytes = String::from_utf8(bytes)
            .unwrap()
            .lines()
            .nth(l - 1)
            .unwrap()
            .as_bytes()
            .to_vec();
    }
    // An .sgfs line keeps its `#line` id; a multi-game file names its games `stem#k`.
    let stem = if line.is_some() {
        id
    } else {
        id.split('#').next().unwrap()
    };
    sgf::parse_records(&bytes, stem, source, ParseConfig::default())
        .into_iter()
        .filter_map(Result::ok)
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} in {source}"))
}

/// Replays `rec` with the game layer directly and returns the expected non-pass positions.
fn expected_positions(rec: &GameRecord, game: u32) -> Vec<Position> {
    let mut board = Board::new();
    board
        .setup(&rec.setup_black, &rec.setup_white, &[])
        .unwrap();
    let mut g = Game::from_board(board, Color::Black, 0.0);
    g.set_superko(false);
    let mut out = Vec::new();
    let mut history: Vec<Move> = Vec::new();
    for (i, &(c, m)) in rec.moves.iter().enumerate() {
        if g.is_over() {
            g = Game::from_board(*g.board(), c, 0.0);
            g.set_superko(false);
        }
        if m != Move::Pass {
            let mut last = [NO_POINT; 4];
            for (k, mv) in history.iter().rev().take(4).enumerate() {
                last[k] = mv.index() as u8;
            }
            out.push(Position {
                cells: *g.board().cells(),
                to_move: c as u8,
                played: m.index() as u8,
                move_number: i as u16,
                last_moves: last,
                ko: g.board().ko_point().map_or(NO_POINT, |p| p.index() as u8),
                winner: rec.result.winner.map_or(0, |w| w as u8),
                black_rank: rec.black_rank.unwrap_or(i8::MIN),
                white_rank: rec.white_rank.unwrap_or(i8::MIN),
                game,
                search: None,
                teacher: None,
            });
        }
        g.play_as(c, m).unwrap();
        history.push(m);
    }
    out
}

fn games_table(dir: &Path) -> Vec<(String, String, String)> {
    let mut rd = csv::Reader::from_path(dir.join("games.csv")).unwrap();
    let header = rd.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (split, id, source) = (col("split"), col("id"), col("source"));
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[split].to_string(),
                r[id].to_string(),
                r[source].to_string(),
            )
        })
        .collect()
}

#[test]
fn round_trip_rederives_every_position() {
    let work = temp("rt");
    let (tar, gz) = make_archives(&work);
    let out = work.join("ds");
    let cfg = config(vec![fixtures(), tar, gz]);
    let m = build(&cfg, &out, false).unwrap();

    // Every split reads back; counts agree with the manifest and the headers.
    let mut by_game: HashMap<u32, Vec<Position>> = HashMap::new();
    let mut total = 0;
    for split in Split::ALL {
        let ps = read_split(&out, split).unwrap();
        let c = m.splits[split.name()];
        assert_eq!(ps.len() as u64, c.positions);
        assert_eq!(
            format::read_header(&out, split).unwrap().games as u64,
            c.games
        );
        let mapped = MappedSplit::open(&out, split).unwrap();
        assert_eq!(mapped.iter().collect::<Result<Vec<_>, _>>().unwrap(), ps);
        total += ps.len();
        for p in ps {
            assert_eq!(
                p.played as usize,
                p.target().iter().position(|&t| t == 0).unwrap()
            );
            by_game.entry(p.game).or_default().push(p);
        }
    }
    assert_eq!(total as u64, m.positions);

    // Each game lies in one split, and its positions are exactly the replayed ones.
    let games = games_table(&out);
    assert_eq!(games.len() as u64, m.games);
    for (g, (split, id, source)) in games.iter().enumerate() {
        let rec = reread(id, source);
        let want = expected_positions(&rec, g as u32);
        let got = by_game.remove(&(g as u32)).unwrap_or_default();
        assert_eq!(got, want, "{id} from {source}");
        let in_split = read_split(
            &out,
            match split.as_str() {
                "train" => Split::Train,
                "validation" => Split::Validation,
                _ => Split::Test,
            },
        )
        .unwrap();
        assert!(want.is_empty() || in_split.iter().any(|p| p.game == g as u32));
    }
    assert!(by_game.is_empty(), "positions of unknown games");

    // Three copies of each fixture (folder, tar, tar.gz): one of each game is kept, the two
    // later copies are dropped as duplicates, so no game lands in two splits.
    assert!(m.games >= 14, "{}", m.games);
    // (The fixtures repeat a few games themselves, so there may be more.)
    assert!(m.duplicates >= 2 * m.games, "{} {}", m.duplicates, m.games);
    let mut ids: Vec<&String> = games.iter().map(|g| &g.1).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len() as u64, m.games);
    fs::remove_dir_all(work).unwrap();
}

#[test]
fn broken_records_are_skipped_with_reasons() {
    let work = temp("skip");
    let out = work.join("ds");
    let m = build(&config(vec![fixtures()]), &out, false).unwrap();
    let reason = |game: &str| -> String {
        m.skipped
            .iter()
            .find(|s| s.game == game)
            .map(|s| format!("{}: {}", s.kind, s.reason))
            .unwrap_or_else(|| panic!("{game} not skipped: {:?}", m.skipped))
    };
    assert!(reason("truncated").starts_with("syntax"));
    assert!(reason("garbage").starts_with("syntax") || reason("garbage").starts_with("no-game"));
    assert!(reason("size_19").starts_with("board-size"));
    assert!(reason("no_size").starts_with("board-size"));
    assert!(reason("off_board").starts_with("off-board"));
    assert_eq!(
        reason("illegal_occupied"),
        "illegal-occupied: move 3 B C7 is illegal: point C7 is occupied"
    );
    assert!(reason("illegal_suicide").starts_with("illegal-suicide: move 5 W A9"));
    assert!(reason("illegal_ko").starts_with("illegal-ko: move 10 W B8"));
    assert!(
        reason("games#4").starts_with("syntax"),
        "the broken .sgfs line"
    );
    assert_eq!(m.skipped.len() as u64, m.errors.values().sum::<u64>());
    assert!(m.skipped.iter().all(|s| !s.file.is_empty()));
    // The manifest on disk says the same.
    let on_disk = Manifest::load(&out).unwrap();
    assert_eq!(on_disk.errors, m.errors);
    assert_eq!(on_disk.games, m.games);
    fs::remove_dir_all(work).unwrap();
}

#[test]
fn same_seed_same_bytes_whatever_the_threads() {
    let work = temp("det");
    let (a, b, c) = (work.join("a"), work.join("b"), work.join("c"));
    build(&config(vec![fixtures()]), &a, false).unwrap();
    build(
        &BuildConfig {
            threads: 2,
            ..config(vec![fixtures()])
        },
        &b,
        false,
    )
    .unwrap();
    build(
        &BuildConfig {
            seed: 99,
            ..config(vec![fixtures()])
        },
        &c,
        false,
    )
    .unwrap();
    let bytes = |d: &Path| {
        Split::ALL
            .map(|s| fs::read(format::split_path(d, s)).unwrap())
            .concat()
    };
    assert_eq!(bytes(&a), bytes(&b));
    assert_eq!(
        fs::read(a.join("games.csv")).unwrap(),
        fs::read(b.join("games.csv")).unwrap()
    );
    let split_of = |d: &Path| games_table(d).into_iter().map(|g| g.0).collect::<Vec<_>>();
    assert_ne!(split_of(&a), split_of(&c), "another seed, another split");
    fs::remove_dir_all(work).unwrap();
}

/// A split file copied in from another build (another seed: other games in the split) is
/// refused by every reader, naming the manifest, rather than read under this dataset's
/// fingerprint; the folder's own files still read.
#[test]
fn a_split_file_from_another_build_is_refused() {
    let work = temp("foreign-split");
    let (a, c) = (work.join("a"), work.join("c"));
    build(&config(vec![fixtures()]), &a, false).unwrap();
    build(
        &BuildConfig {
            seed: 99,
            ..config(vec![fixtures()])
        },
        &c,
        false,
    )
    .unwrap();
    assert!(read_split(&a, Split::Test).is_ok());
    fs::copy(
        format::split_path(&c, Split::Test),
        format::split_path(&a, Split::Test),
    )
    .unwrap();
    let e = read_split(&a, Split::Test).unwrap_err().to_string();
    assert!(
        e.contains("manifest.json") && e.contains("not this build's file"),
        "{e}"
    );
    assert!(MappedSplit::open(&a, Split::Test).is_err());
    assert!(read_split(&a, Split::Train).is_ok());
    fs::remove_dir_all(work).unwrap();
}

#[test]
fn filters_apply_and_passes_are_optional() {
    let work = temp("filt");
    let mut cfg = config(vec![fixtures()]);
    let all = build(&cfg, &work.join("all"), false).unwrap();
    cfg.include_passes = true;
    let with_passes = build(&cfg, &work.join("passes"), false).unwrap();
    assert_eq!(with_passes.positions, all.positions + all.passes_dropped);
    assert!(all.passes_dropped >= 4, "passes.sgf has four");
    cfg.include_passes = false;
    cfg.filter.min_moves = 4;
    cfg.filter.result_known = true;
    cfg.filter.no_handicap = true;
    let f = build(&cfg, &work.join("f"), false).unwrap();
    assert!(f.games < all.games);
    for kind in ["filter:moves", "filter:result", "filter:handicap"] {
        assert!(
            f.filtered.get(kind).copied().unwrap_or(0) > 0,
            "{kind}: {:?}",
            f.filtered
        );
    }
    let games = games_table(&work.join("f"));
    assert!(games.iter().all(|g| g.1 != "empty" && g.1 != "handicap"));
    fs::remove_dir_all(work).unwrap();
}

#[test]
fn a_failed_build_leaves_nothing_and_never_clobbers_other_files() {
    let work = temp("atomic");
    // An existing folder that is not a dataset is refused and left as it was.
    let precious = work.join("precious");
    fs::create_dir_all(&precious).unwrap();
    fs::write(precious.join("notes.txt"), "keep me").unwrap();
    assert!(build(&config(vec![fixtures()]), &precious, false).is_err());
    assert_eq!(
        fs::read_to_string(precious.join("notes.txt")).unwrap(),
        "keep me"
    );
    // A bad configuration fails before anything is written.
    let out = work.join("ds");
    let bad = BuildConfig {
        validation_fraction: 0.9,
        test_fraction: 0.9,
        ..config(vec![fixtures()])
    };
    assert!(build(&bad, &out, false).is_err());
    assert!(!out.exists());
    // A second build replaces the first one whole.
    build(&config(vec![fixtures()]), &out, false).unwrap();
    build(&config(vec![fixtures().join("ogs_style.sgf")]), &out, false).unwrap();
    assert_eq!(Manifest::load(&out).unwrap().games, 1);
    let leftovers: Vec<_> = fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-") || n.contains(".old-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(out.join(MANIFEST_FILE).exists());
    fs::remove_dir_all(work).unwrap();
}

#[test]
fn a_corrupt_archive_is_reported_and_the_build_goes_on() {
    let work = temp("corrupt");
    let (_, gz) = make_archives(&work);
    let bytes = fs::read(&gz).unwrap();
    let cut = work.join("cut.tar.gz");
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let missing = work.join("missing.sgf");
    let out = work.join("ds");
    let good = build(&config(vec![fixtures()]), &work.join("good"), false).unwrap();
    // A named input that does not exist is refused before anything is read or written.
    let e = build(&config(vec![missing.clone(), fixtures()]), &out, false).unwrap_err();
    assert!(e.to_string().contains("missing.sgf"), "{e}");
    assert!(!out.exists());
    let m = build(&config(vec![cut.clone(), fixtures()]), &out, false).unwrap();
    let unreadable: Vec<_> = m
        .skipped
        .iter()
        .filter(|s| s.kind == "unreadable")
        .collect();
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    assert!(unreadable.iter().any(|s| s.file.ends_with("cut.tar.gz")));
    // Everything after the broken archive is still read.
    assert!(m.games >= good.games, "{} < {}", m.games, good.games);
    fs::remove_dir_all(work).unwrap();
}

#[test]
fn held_out_test_games_never_reach_train_or_validation() {
    let work = temp("holdout");
    let (first, second) = (work.join("first"), work.join("second"));
    // The first dataset puts half its games in test; the second, with another seed and no
    // test share, would train on them unless they are held out.
    build(
        &BuildConfig {
            test_fraction: 0.5,
            validation_fraction: 0.0,
            ..config(vec![fixtures()])
        },
        &first,
        false,
    )
    .unwrap();
    let first_test: Vec<String> = games_table(&first)
        .into_iter()
        .filter(|g| g.0 == "test")
        .map(|g| g.1)
        .collect();
    assert!(first_test.len() >= 2, "{first_test:?}");
    let open = BuildConfig {
        seed: 7,
        test_fraction: 0.0,
        ..config(vec![fixtures()])
    };
    build(&open, &second, false).unwrap();
    let leaked = |d: &Path| {
        games_table(d)
            .into_iter()
            .filter(|g| g.0 != "test" && first_test.contains(&g.1))
            .count()
    };
    assert!(leaked(&second) > 0, "without --hold-out the games leak");
    let held = work.join("held");
    build(
        &BuildConfig {
            hold_out: vec![first.clone()],
            ..open
        },
        &held,
        false,
    )
    .unwrap();
    assert_eq!(leaked(&held), 0);
    let err = build(
        &BuildConfig {
            hold_out: vec![work.join("missing")],
            ..config(vec![fixtures()])
        },
        &work.join("x"),
        false,
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("missing"), "{err:#}");
    fs::remove_dir_all(work).unwrap();
}

/// A rebuild killed at either step of its commit leaves the old dataset or the new one
/// whole, never neither; the next build cleans what the crash left; a second build into the
/// same folder is refused while the first holds its lock.
#[test]
fn a_build_killed_inside_its_commit_leaves_a_whole_dataset() {
    let dir = temp("killed-build");
    let out = dir.join("ds");
    let build = |extra: &[&str], failpoint: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"));
        cmd.args(["dataset", "build", "--sgf"])
            .arg(fixtures())
            .args(["--quiet", "--out"])
            .arg(&out)
            .args(extra);
        if let Some(f) = failpoint {
            cmd.env("AKUSHU_FAILPOINT", f);
        }
        let o = cmd.output().unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let games = || Manifest::load(&out).unwrap().games;
    let (ok, text) = build(&[], None);
    assert!(ok, "{text}");
    let all = games();
    // Killed after the new files are synced, before the swap: the old dataset stands.
    let (ok, _) = build(&["--min-moves", "3"], Some("dataset-synced:1"));
    assert!(!ok);
    assert_eq!(games(), all);
    // Killed right after the swap: the new dataset stands, the old one waits to be removed.
    let (ok, _) = build(&["--min-moves", "3"], Some("dataset-swapped:1"));
    assert!(!ok);
    let fewer = games();
    assert!(fewer < all, "{fewer} vs {all}");
    assert!(read_split(&out, Split::Train).is_ok());
    let (ok, text) = build(&[], None);
    assert!(ok && text.contains("removed"), "{text}");
    assert_eq!(games(), all);
    let left: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "ds")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A live writer's lock refuses a second build.
    fs::write(dir.join("ds.lock"), format!("{}\n", std::process::id())).unwrap();
    let (ok, text) = build(&[], None);
    assert!(!ok && text.contains("being written"), "{text}");
    fs::remove_dir_all(dir).unwrap();
}
