//! Hostile inputs through the real binary: every command ends (no panic, no abort, no hang)
//! with a clear message, and nothing outside a command's output path is replaced or lost.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{Run, akushu_in, s, scratch};

fn akushu(args: &[&str]) -> Run {
    akushu_in(args, "", 120)
}

/// A fresh scratch folder for one test.
fn work(name: &str) -> PathBuf {
    scratch("hostile", name)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf")
}

fn good_sgf(dir: &Path) -> PathBuf {
    let p = dir.join("good.sgf");
    fs::write(
        &p,
        "(;GM[1]SZ[9]KM[6.5]RE[B+R];B[ee];W[cc];B[gc];W[cg];B[gg];W[dd])",
    )
    .unwrap();
    p
}

/// `dataset build --sgf INPUTS --out OUT --quiet`, with a one-minute limit.
fn dataset_build(inputs: &[&Path], out: &Path) -> Run {
    let mut args = vec!["dataset".to_string(), "build".into(), "--sgf".into()];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["--out".into(), s(out), "--quiet".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    akushu_in(&args, "", 60)
}

/// Every file below `dir` with its bytes (symlinks as their target text).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            let m = fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                out.push((
                    p.clone(),
                    fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ));
            } else if m.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn node_sequences_too_deep_are_skipped_not_a_crash() {
    let w = work("deep");
    let dir = w.join("in");
    fs::create_dir_all(&dir).unwrap();
    good_sgf(&dir);
    fs::write(
        dir.join("deep.sgf"),
        format!("(;SZ[9]{})", ";".repeat(50_000)),
    )
    .unwrap();
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &s(&dir),
        "--out",
        &s(&w.join("ds")),
        "--quiet",
    ]);
    assert!(r.ok(), "{}", r.stderr);
    assert!(r.stdout.contains("too-deep: 1"), "{}", r.stdout);
    assert!(r.stdout.contains("games: 1"), "{}", r.stdout);

    let huge = w.join("huge.sgf");
    fs::write(&huge, format!("(;SZ[9]{})", ";".repeat(1_000_000))).unwrap();
    let r = akushu(&["eval", "--model", "random", "--sgf", &s(&huge)]);
    assert!(r.refused(), "{:?} {}", r.code, r.stderr);
    let passes = w.join("passes.sgf");
    fs::write(&passes, format!("(;SZ[9]{})", ";B[]".repeat(200_000))).unwrap();
    let r = akushu(&["analyze", "--sgf", &s(&passes)]);
    assert!(
        r.refused() && r.stderr.contains("deeper than"),
        "{:?} {}",
        r.code,
        r.stderr
    );
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn non_finite_and_huge_numbers_are_refused_naming_the_flag() {
    let w = work("numbers");
    let out = w.join("m");
    for (flag, value) in [
        ("--genmove-timeout", "inf"),
        ("--genmove-timeout", "NaN"),
        ("--genmove-timeout", "1e300"),
        ("--command-timeout", "NaN"),
        ("--command-timeout", "1e300"),
        ("--komi", "NaN"),
        ("--komi", "inf"),
        ("--jobs", "0"),
    ] {
        let r = akushu(&[
            "match",
            "--black",
            "random",
            "--white",
            "random",
            "--games",
            "1",
            "--out",
            &s(&out),
            flag,
            value,
            "--quiet",
        ]);
        assert!(
            r.refused() && r.stderr.contains(flag),
            "{flag} {value}: {}",
            r.stderr
        );
        assert!(
            !out.exists(),
            "{flag} {value}: a refused match writes nothing"
        );
    }
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &s(&good_sgf(&w)),
        "--out",
        &s(&w.join("ds")),
        "--threads",
        "5000",
    ]);
    assert!(
        r.refused() && r.stderr.contains("--threads"),
        "{}",
        r.stderr
    );
    for (flag, value) in [
        ("--lr", "NaN"),
        ("--stop-after-minutes", "inf"),
        ("--channels", "0"),
    ] {
        let r = akushu(&[
            "train",
            "--synthetic-games",
            "2",
            "--out",
            &s(&w.join("model")),
            flag,
            value,
        ]);
        assert!(
            r.refused() && r.stderr.contains(flag),
            "{flag} {value}: {}",
            r.stderr
        );
        assert!(!w.join("model").exists());
    }
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn gtp_time_limits_never_panic() {
    let r = akushu_in(
        &["gtp", "--engine", "uct:sims=200"],
        "time_left b 1e300 0\ngenmove b\ntime_left b NaN 0\ngenmove w\nquit\n",
        60,
    );
    assert!(r.ok(), "{}", r.stderr);
    assert_eq!(
        r.stdout.matches("? syntax error").count(),
        2,
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout.matches("\n= ").count() + usize::from(r.stdout.starts_with("= ")),
        2
    );
    for spec in [
        "uct:sims=200,max_seconds=inf",
        "uct:sims=200,max_seconds=NaN",
    ] {
        let r = akushu_in(&["gtp", "--engine", spec], "genmove b\nquit\n", 60);
        assert!(
            r.refused() && r.stderr.contains("max_seconds"),
            "{spec}: {}",
            r.stderr
        );
    }
}

/// Runs akushu with its stdout closed at once (`| head -0`).
fn with_closed_stdout(args: &[&str]) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.code()
}

#[test]
fn a_closed_stdout_still_writes_the_outputs() {
    let w = work("pipe");
    let ds = w.join("ds");
    let code = with_closed_stdout(&[
        "dataset",
        "build",
        "--sgf",
        &s(&fixtures()),
        "--out",
        &s(&ds),
        "--quiet",
    ]);
    assert_eq!(code, Some(0));
    assert!(ds.join("manifest.json").exists(), "the dataset is written");
    assert_eq!(with_closed_stdout(&["dataset", "stats", &s(&ds)]), Some(0));
    let csv = w.join("curve.csv");
    let code = with_closed_stdout(&[
        "eval",
        "--model",
        "random",
        "--data",
        &s(&ds),
        "--split",
        "all",
        "--csv",
        &s(&csv),
    ]);
    assert_eq!(code, Some(0));
    assert!(csv.exists(), "the curve is written");
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn symlink_loops_and_second_paths_read_each_game_once() {
    let w = work("loop");
    let dir = w.join("L");
    fs::create_dir_all(dir.join("sub")).unwrap();
    good_sgf(&dir.join("sub"));
    std::os::unix::fs::symlink("..", dir.join("sub/up")).unwrap();
    let link = w.join("again");
    std::os::unix::fs::symlink(&dir, &link).unwrap();
    let r = dataset_build(&[&dir, &link], &w.join("ds"));
    assert!(r.ok(), "{}", r.stderr);
    assert!(r.stdout.contains("games: 1\n"), "{}", r.stdout);
    let r = akushu_in(
        &[
            "eval",
            "--model",
            "random",
            "--sgf",
            &s(&dir),
            "--sgf",
            &s(&link),
        ],
        "",
        60,
    );
    assert!(r.ok(), "{}", r.stderr);
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn eval_names_the_records_it_skips_and_counts_the_passes_it_does_not_rate() {
    let w = work("eval-skips");
    let dir = w.join("in");
    fs::create_dir_all(&dir).unwrap();
    let good = good_sgf(&dir);
    fs::copy(&good, dir.join("good-copy.sgf")).unwrap();
    fs::copy(fixtures().join("garbage.sgf"), dir.join("garbage.sgf")).unwrap();
    fs::copy(fixtures().join("passes.sgf"), dir.join("passes.sgf")).unwrap();
    let r = akushu_in(&["eval", "--model", "random", "--sgf", &s(&dir)], "", 60);
    assert!(r.ok(), "{}", r.stderr);
    let out = &r.stdout;
    assert!(out.contains("2 records skipped"), "{out}");
    assert!(out.contains("garbage.sgf: SGF syntax error"), "{out}");
    // good.sgf and good-copy.sgf hold one game: the one read second is named.
    assert!(
        out.contains(".sgf: the same game as a record read before"),
        "{out}"
    );
    // The passes of passes.sgf are counted where the positions are, and again beside n=.
    assert!(out.contains("pass moves not rated)"), "{out}");
    let row = out.lines().find(|l| l.contains(" n=")).unwrap();
    assert!(row.contains("pass moves not rated"), "{row}");

    // Many skipped records: the first few by name, then a count.
    let many = w.join("many");
    fs::create_dir_all(&many).unwrap();
    good_sgf(&many);
    for k in 0..8 {
        fs::write(many.join(format!("bad{k}.sgf")), "not a game").unwrap();
    }
    let r = akushu_in(&["eval", "--model", "random", "--sgf", &s(&many)], "", 60);
    assert!(r.ok(), "{}", r.stderr);
    assert!(r.stdout.contains("8 records skipped"), "{}", r.stdout);
    let named = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("#   skipped "))
        .count();
    assert_eq!(named, 5, "{}", r.stdout);
    assert!(
        r.stdout.contains("... and 3 more records skipped"),
        "{}",
        r.stdout
    );
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn fifos_in_folders_and_huge_counts_do_not_hang() {
    let w = work("fifo");
    let dir = w.join("in");
    fs::create_dir_all(&dir).unwrap();
    good_sgf(&dir);
    let made = Command::new("mkfifo")
        .arg(dir.join("pipe.sgf"))
        .status()
        .unwrap();
    assert!(made.success());
    let r = dataset_build(&[&dir], &w.join("ds"));
    assert!(r.ok(), "{}", r.stderr);
    assert!(r.stdout.contains("games: 1\n"), "{}", r.stdout);
    let r = akushu_in(
        &[
            "match",
            "--black",
            "random",
            "--white",
            "random",
            "--games",
            "4294967295",
            "--out",
            &s(&w.join("m")),
            "--quiet",
        ],
        "",
        60,
    );
    assert!(r.refused() && r.stderr.contains("--games"), "{}", r.stderr);
    let r = akushu_in(&["bench", "playouts", "--seconds", "inf"], "", 60);
    assert!(
        r.refused() && r.stderr.contains("--seconds"),
        "{}",
        r.stderr
    );
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn outputs_never_replace_what_akushu_did_not_write() {
    let w = work("outputs");
    let ds = w.join("ds");
    let r = dataset_build(&[&fixtures()], &ds);
    assert!(r.ok(), "{}", r.stderr);
    let before = snapshot(&w);

    // A missing input keeps the dataset already there.
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        "/nonexistent/x.sgf",
        "--out",
        &s(&ds),
    ]);
    assert!(
        r.refused() && r.stderr.contains("/nonexistent/x.sgf"),
        "{}",
        r.stderr
    );
    // The input as the output, or inside it.
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &s(&ds),
        "--out",
        &s(&ds),
        "--force",
    ]);
    assert!(r.refused() && r.stderr.contains("input"), "{}", r.stderr);
    assert_eq!(snapshot(&w), before);

    // A folder that merely holds a manifest.json is not a dataset of ours.
    let mine = w.join("mine");
    fs::create_dir_all(&mine).unwrap();
    fs::write(mine.join("manifest.json"), "{}").unwrap();
    fs::write(mine.join("thesis.tex"), "years of work").unwrap();
    let r = dataset_build(&[&fixtures()], &mine);
    assert!(r.refused() && r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(
        fs::read_to_string(mine.join("thesis.tex")).unwrap(),
        "years of work"
    );

    // Training never writes into someone else's folder.
    let r = akushu(&[
        "train",
        "--synthetic-games",
        "5",
        "--model",
        "mlp",
        "--out",
        &s(&mine),
        "--epochs",
        "1",
    ]);
    assert!(r.refused() && r.stderr.contains("marker"), "{}", r.stderr);
    assert_eq!(
        fs::read_to_string(mine.join("manifest.json")).unwrap(),
        "{}"
    );

    // A symlink is not replaced by a file; a device is streamed into.
    let target = w.join("notes.txt");
    fs::write(&target, "keep me").unwrap();
    let link = w.join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let r = akushu(&[
        "eval",
        "--model",
        "random",
        "--data",
        &s(&ds),
        "--split",
        "all",
        "--csv",
        &s(&link),
    ]);
    assert!(r.refused(), "{}", r.stderr);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    let r = akushu(&[
        "eval",
        "--model",
        "random",
        "--data",
        &s(&ds),
        "--split",
        "all",
        "--summary",
        "/dev/null",
    ]);
    assert!(r.ok(), "{}", r.stderr);
    assert!(!fs::metadata("/dev/null").unwrap().is_file());
    // A regular file akushu did not write is kept; its own is replaced.
    let r = akushu(&[
        "eval",
        "--model",
        "random",
        "--data",
        &s(&ds),
        "--split",
        "all",
        "--csv",
        &s(&target),
    ]);
    assert!(r.refused() && r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    let csv = w.join("curve.csv");
    for _ in 0..2 {
        let r = akushu(&[
            "eval",
            "--model",
            "random",
            "--data",
            &s(&ds),
            "--split",
            "all",
            "--csv",
            &s(&csv),
        ]);
        assert!(r.ok(), "{}", r.stderr);
    }

    // A picture from elsewhere is kept (a PNG is not enough: akushu's charts carry a mark);
    // a chart akushu drew is redrawn.
    let eval_png = |png: &Path| {
        akushu(&[
            "eval",
            "--model",
            "random",
            "--data",
            &s(&ds),
            "--split",
            "all",
            "--png",
            &s(png),
        ])
    };
    let ours = w.join("ours.png");
    let r = eval_png(&ours);
    assert!(r.ok(), "{}", r.stderr);
    let r = eval_png(&ours);
    assert!(r.ok(), "{}", r.stderr);
    // The same picture without akushu's text chunk (27 bytes after the 33-byte header).
    let drawn = fs::read(&ours).unwrap();
    let photo = [&drawn[..33], &drawn[33 + 27..]].concat();
    let theirs = w.join("photo.png");
    fs::write(&theirs, &photo).unwrap();
    let r = eval_png(&theirs);
    assert!(r.refused() && r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(fs::read(&theirs).unwrap(), photo);

    // An SVG chart by its extension, with the title and size asked for; redrawn when it is
    // akushu's, kept when it is someone else's drawing.
    let eval_svg = |svg: &Path| {
        akushu(&[
            "eval",
            "--model",
            "random",
            "--data",
            &s(&ds),
            "--split",
            "all",
            "--png",
            &s(svg),
            "--title",
            "Random on the fixture",
            "--chart-size",
            "1200x800",
        ])
    };
    let svg = w.join("ours.svg");
    for _ in 0..2 {
        let r = eval_svg(&svg);
        assert!(r.ok(), "{}", r.stderr);
    }
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<!-- akushu chart -->\n<svg width=\"1200\" height=\"800\""));
    assert!(text.contains("Random on the fixture"));
    assert!(
        text.contains("legal moves only"),
        "the legal-moves curve is drawn"
    );
    let drawing = w.join("drawing.svg");
    fs::write(&drawing, "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap();
    let r = eval_svg(&drawing);
    assert!(r.refused() && r.stderr.contains("--force"), "{}", r.stderr);
    let r = akushu(&[
        "eval",
        "--model",
        "random",
        "--data",
        &s(&ds),
        "--png",
        &s(&svg),
        "--chart-size",
        "10x10",
    ]);
    assert!(!r.ok() && r.stderr.contains("200 to 8000"), "{}", r.stderr);
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn match_folders_refuse_unknown_games_and_changed_models() {
    let w = work("match");
    // Games without a match.toml cannot be tied to players.
    let m = w.join("m");
    let run = |out: &Path, black: &str, games: &str| {
        akushu(&[
            "match",
            "--black",
            black,
            "--white",
            "random",
            "--games",
            games,
            "--out",
            &s(out),
            "--quiet",
        ])
    };
    assert!(run(&m, "random", "2").ok());
    fs::remove_file(m.join("match.toml")).unwrap();
    let before = snapshot(&m);
    let r = run(&m, "territory", "2");
    assert!(
        r.refused() && r.stderr.contains("match.toml"),
        "{}",
        r.stderr
    );
    assert_eq!(snapshot(&m), before);

    // Fewer games than already finished.
    let m2 = w.join("m2");
    assert!(run(&m2, "random", "3").ok());
    let r = run(&m2, "random", "1");
    assert!(r.refused() && r.stderr.contains("--games"), "{}", r.stderr);

    // A model whose weights changed between runs.
    let model = w.join("model");
    fs::create_dir_all(&model).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for f in ["config.json", "model.bpk"] {
        fs::copy(shipped.join("default").join(f), model.join(f)).unwrap();
    }
    let spec = format!("uct:sims=20,prune=nn:{}:10", model.display());
    let m3 = w.join("m3");
    let r = run(&m3, &spec, "1");
    assert!(r.ok(), "{}", r.stderr);
    assert!(
        fs::read_to_string(m3.join("match.toml"))
            .unwrap()
            .contains("fnv1a64:")
    );
    fs::copy(
        shipped.join("mlp-paper-human/model.bpk"),
        model.join("model.bpk"),
    )
    .unwrap();
    let r = run(&m3, &spec, "2");
    assert!(
        r.refused() && r.stderr.contains("has changed"),
        "{}",
        r.stderr
    );
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn corrupt_weights_are_refused_on_load() {
    let w = work("weights");
    let model = w.join("model");
    fs::create_dir_all(&model).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default");
    for f in ["config.json", "model.bpk", "model.bpk.checksum"] {
        fs::copy(shipped.join(f), model.join(f)).unwrap();
    }
    let mut bytes = fs::read(model.join("model.bpk")).unwrap();
    for i in 0..50 {
        bytes[20_000 + 97 * i] ^= 0xff;
    }
    fs::write(model.join("model.bpk"), &bytes).unwrap();
    let r = akushu(&["eval", "--model", &s(&model), "--synthetic-games", "20"]);
    assert!(
        r.refused() && r.stderr.contains("checksum mismatch"),
        "{}",
        r.stderr
    );
    // A checksum file that holds no checksum is refused too, naming it, not compared as text.
    fs::copy(shipped.join("model.bpk"), model.join("model.bpk")).unwrap();
    fs::write(model.join("model.bpk.checksum"), "fnv1a64:zz bytes:1\n").unwrap();
    let r = akushu(&["eval", "--model", &s(&model), "--synthetic-games", "20"]);
    assert!(
        r.refused()
            && r.stderr.contains("model.bpk.checksum")
            && r.stderr.contains("is not a checksum"),
        "{}",
        r.stderr
    );
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn empty_or_unknown_selections_are_errors() {
    let w = work("empty");
    let r = akushu(&[
        "eval",
        "--model",
        "random",
        "--sgf",
        &s(&w.join("missing.sgf")),
    ]);
    assert!(
        r.refused() && r.stderr.contains("missing.sgf"),
        "{}",
        r.stderr
    );
    let bad = w.join("bad.sgf");
    fs::write(&bad, "not sgf").unwrap();
    let r = akushu(&["eval", "--model", "random", "--sgf", &s(&bad)]);
    assert!(
        r.refused() && r.stderr.contains("no positions"),
        "{}",
        r.stderr
    );
    let r = akushu(&["reproduce", "--quick", "--only", "bogus", "--no-play"]);
    assert!(r.refused() && r.stderr.contains("bogus"), "{}", r.stderr);
    let r = akushu(&["analyze", "--sgf", &s(&good_sgf(&w)), "--move", "99999"]);
    assert!(r.refused() && r.stderr.contains("6 moves"), "{}", r.stderr);
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn collections_count_and_name_every_game() {
    let w = work("multi");
    let multi = w.join("multi.sgf");
    fs::write(
        &multi,
        "(;SZ[9];B[ee];W[cc])(;SZ[9];B[jj])(;SZ[9];B[gg];W[cg])",
    )
    .unwrap();
    let ds = w.join("ds");
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &s(&multi),
        "--out",
        &s(&ds),
        "--quiet",
    ]);
    assert!(r.ok(), "{}", r.stderr);
    assert!(r.stdout.contains("games read: 3"), "{}", r.stdout);
    let skipped = fs::read_to_string(ds.join("skipped.csv")).unwrap();
    assert!(skipped.contains("multi#2"), "{skipped}");
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn gtp_engines_binary_garbage_and_wrapped_children() {
    use std::os::unix::fs::PermissionsExt;
    let w = work("engines");
    let script = |name: &str, body: &str| {
        let p = w.join(name);
        fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    // Binary garbage is reported as garbage, not as a crash or a signal.
    let garbage = script(
        "garbage.sh",
        "while read l; do printf '\\377\\376\\001x\\n\\n'; done\n",
    );
    let r = akushu(&[
        "match",
        "--black",
        &format!("gtp:{}", garbage.display()),
        "--white",
        "random",
        "--games",
        "1",
        "--out",
        &s(&w.join("m1")),
        "--quiet",
    ]);
    assert!(r.refused() && r.stderr.contains("garbage"), "{}", r.stderr);
    assert!(!r.stderr.contains("SIGPIPE"), "{}", r.stderr);

    // An answer that never ends is cut off, not read into memory without end.
    let endless = script(
        "endless.sh",
        "read l; printf '= '; while true; do printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; done\n",
    );
    let r = akushu(&[
        "match",
        "--black",
        &format!("gtp:{}", endless.display()),
        "--white",
        "random",
        "--games",
        "1",
        "--out",
        &s(&w.join("m0")),
        "--quiet",
    ]);
    assert!(
        r.refused() && r.stderr.contains("longer than"),
        "{}",
        r.stderr
    );

    // A wrapper script's child is stopped with the hung engine.
    let pid_file = w.join("child.pid");
    let wrapper = script(
        "wrapper.sh",
        &format!(
            "sleep 1000 &\necho $! > {}\nwhile read c rest; do\n  case \"$c\" in\n    genmove) sleep 1000 ;;\n    known_command) printf '= false\\n\\n' ;;\n    *) printf '=\\n\\n' ;;\n  esac\ndone\n",
            pid_file.display()
        ),
    );
    let r = akushu(&[
        "match",
        "--black",
        &format!("gtp:{}", wrapper.display()),
        "--white",
        "random",
        "--games",
        "1",
        "--out",
        &s(&w.join("m2")),
        "--quiet",
        "--genmove-timeout",
        "1",
    ]);
    assert!(r.ok(), "{}", r.stderr);
    let pid = fs::read_to_string(&pid_file).unwrap().trim().to_string();
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while proc_dir.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !proc_dir.exists(),
        "the wrapper's child {pid} is still running"
    );
    fs::remove_dir_all(w).unwrap();
}

#[test]
fn endless_gtp_lines_and_a_closed_stderr_are_survived() {
    let long = format!("{}\nname\nquit\n", "x".repeat(3 << 20));
    let r = akushu_in(&["gtp", "--engine", "uct:sims=10"], &long, 60);
    assert!(r.ok(), "{}", r.stderr);
    let head = &r.stdout[..r.stdout.len().min(200)];
    assert!(
        head.starts_with("? command line too long\n\n= akushu\n\n"),
        "{head}"
    );

    // A resumed match writes a note to stderr; with stderr closed it still finishes.
    let w = work("stderr");
    let m = w.join("m");
    let out = s(&m);
    let args = [
        "match", "--black", "random", "--white", "random", "--games", "1", "--out", &out, "--quiet",
    ];
    assert!(akushu(&args).ok());
    // One game more: a change of the plan, so `--extend`.
    let mut args = args.to_vec();
    args[6] = "2";
    args.push("--extend");
    let mut child = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let rows = fs::read_to_string(m.join("games.csv"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(rows, 3, "header and two games");
    fs::remove_dir_all(w).unwrap();
}

/// A split file whose checksum is right but whose record holds a stone without liberties
/// is refused by name (file and record), not by a panic, in every command that reads it.
#[test]
fn a_checksummed_record_with_a_dead_stone_is_refused_by_name() {
    use akushu::dataset::format::{SplitWriter, split_path};
    use akushu::dataset::{NO_POINT, Position, Split};
    let w = work("deadstone");
    let ds = w.join("ds");
    let r = dataset_build(&[&fixtures()], &ds);
    assert!(r.ok(), "{}", r.stderr);
    // A black stone in the corner with white on both its liberties.
    let mut cells = [0u8; 81];
    cells[0] = 1;
    cells[1] = 2;
    cells[9] = 2;
    let bad = Position {
        cells,
        to_move: 1,
        played: 40,
        move_number: 3,
        last_moves: [9, 1, NO_POINT, NO_POINT],
        ko: NO_POINT,
        winner: 1,
        black_rank: 0,
        white_rank: 0,
        game: 0,
        search: None,
        teacher: None,
    };
    // The manifest is made to list the new files (a split it does not list is refused
    // before any record is read), so what refuses them is the record's own check.
    let manifest_path = ds.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&manifest_path).unwrap()).unwrap();
    for split in [Split::Train, Split::Validation, Split::Test] {
        let mut writer = SplitWriter::create(&ds, split).unwrap();
        writer.push(&bad).unwrap();
        let h = writer.finish(1).unwrap();
        manifest["splits"][split.name()]["positions"] = serde_json::json!(h.count);
        manifest["splits"][split.name()]["crc32"] = serde_json::json!(h.crc);
    }
    fs::write(&manifest_path, manifest.to_string()).unwrap();
    let file = s(&split_path(&ds, Split::Test));
    for args in [
        vec![
            "eval",
            "--model",
            "rules",
            "--data",
            &s(&ds),
            "--split",
            "test",
        ],
        vec![
            "dataset",
            "show",
            &s(&ds),
            "--split",
            "test",
            "--index",
            "0",
        ],
    ] {
        let r = akushu_in(&args, "", 60);
        assert!(r.refused(), "{args:?}: {} {}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains(&file)
                && r.stderr.contains("record 0")
                && r.stderr.contains("no liberties"),
            "{args:?}: {}",
            r.stderr
        );
    }
    fs::remove_dir_all(w).unwrap();
}

/// GTP `printsgf FILE` follows the output rule: another file, a symbolic link, a FIFO and a
/// missing folder are refused and left as they were; a new file, and then akushu's own
/// file, are written.
#[test]
fn printsgf_replaces_only_its_own_files() {
    let w = work("printsgf");
    let notes = w.join("notes.txt");
    fs::write(&notes, "keep\n").unwrap();
    std::os::unix::fs::symlink(&notes, w.join("link.sgf")).unwrap();
    let fifo = w.join("f");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let ok = w.join("ok.sgf");
    let script = format!(
        "play b e5\nprintsgf {}\nprintsgf {}\nprintsgf {}\nprintsgf {}\nprintsgf {}\nprintsgf {}\n",
        s(&notes),
        s(&w.join("link.sgf")),
        s(&fifo),
        s(&w.join("no/such/x.sgf")),
        s(&ok),
        s(&ok)
    );
    let r = akushu_in(&["gtp", "--engine", "random"], &script, 20);
    assert!(r.ok(), "{}", r.stderr);
    let answers: Vec<&str> = r
        .stdout
        .split("\n\n")
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    assert_eq!(answers.len(), 7, "{}", r.stdout);
    for a in &answers[1..5] {
        assert!(a.starts_with("? printsgf"), "{a}");
    }
    assert_eq!(answers[5..], ["=", "="], "{}", r.stdout);
    assert_eq!(fs::read_to_string(&notes).unwrap(), "keep\n");
    assert!(
        fs::symlink_metadata(w.join("link.sgf"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(!w.join("no").exists(), "no folder is created");
    assert!(fs::read_to_string(&ok).unwrap().contains(";B[ee]"));
    fs::remove_dir_all(w).unwrap();
}

/// Small refusals that name what is allowed: a match of no games, a move cap out of range,
/// a clock whose grace swallows every move, a negative analysis interval; and `none`, the
/// documented default of the network keys, accepted.
#[test]
fn small_cases_are_refused_with_the_allowed_range() {
    let w = work("small-cases");
    let out = |name: &str| w.join(name).display().to_string();
    let r = akushu(&[
        "match",
        "--black",
        "random",
        "--white",
        "random",
        "--games",
        "0",
        "--out",
        &out("g0"),
    ]);
    assert!(
        r.refused() && r.stderr.contains("1 to 1000000"),
        "{}",
        r.stderr
    );
    assert!(!w.join("g0").exists(), "nothing written");
    let r = akushu(&[
        "match",
        "--black",
        "random",
        "--white",
        "random",
        "--max-moves",
        "99999999999",
        "--out",
        &out("mm"),
    ]);
    assert!(
        r.refused() && r.stderr.contains("1 to 100000"),
        "{}",
        r.stderr
    );
    let r = akushu(&[
        "match",
        "--black",
        "random",
        "--white",
        "random",
        "--games",
        "1",
        "--time-per-move",
        "0.05",
        "--time-grace",
        "10",
        "--out",
        &out("grace"),
    ]);
    assert!(
        r.refused() && r.stderr.contains("--time-grace"),
        "{}",
        r.stderr
    );
    let r = akushu(&[
        "match",
        "--black",
        "uct:sims=20,prune=none,policy=none",
        "--white",
        "random",
        "--games",
        "1",
        "--quiet",
        "--out",
        &out("none"),
    ]);
    assert!(r.ok(), "{}", r.stderr);
    let r = akushu_in(
        &["gtp", "--engine", "random", "--quiet"],
        "lz-analyze b -1\nquit\n",
        20,
    );
    assert!(
        r.stdout
            .contains("the interval `-1` must be a whole number of centiseconds, 0 to 360000"),
        "{}",
        r.stdout
    );
    // Model names: `symN:` is a symmetry prefix whatever N is, and `nn:DIR` is the directory.
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sgf");
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/models/cnn");
    for (name, ok) in [
        ("sym0:", false),
        ("sym1:", false),
        ("nn:", true),
        ("sym2:nn:", true),
    ] {
        let model = format!("{name}{models}");
        let r = akushu(&["eval", "--model", &model, "--sgf", fixtures]);
        if ok {
            assert!(r.ok(), "{model}: {}", r.stderr);
        } else {
            assert!(
                r.refused()
                    && r.stderr
                        .contains("is not a symmetry average (sym2:, sym4:, sym8: only)"),
                "{model}: {}",
                r.stderr
            );
        }
    }
    fs::remove_dir_all(w).unwrap();
}

/// A killed match leaves `NAME.tmp-PID` files behind; the next run removes those whose
/// process is gone and keeps a live writer's.
#[test]
fn a_resumed_match_removes_a_killed_runs_temporary_files() {
    let w = work("stale-temps");
    let m = w.join("m");
    // A second run plays one game more: a change of the plan, so `--extend`.
    let run = |games: &str| {
        akushu(&[
            "match",
            "--black",
            "random",
            "--white",
            "random",
            "--games",
            games,
            "--extend",
            "--quiet",
            "--out",
            &m.display().to_string(),
        ])
    };
    assert!(run("1").ok());
    // No process has id 4,000,000,000 (above Linux's pid_max); this test's own id is live.
    let stale = m.join("sgf/game-00002.sgf.tmp-4000000000");
    let live = m.join(format!("games.csv.tmp-{}", std::process::id()));
    fs::write(&stale, "(;half").unwrap();
    fs::write(&live, "in progress").unwrap();
    let r = run("2");
    assert!(r.ok(), "{}", r.stderr);
    assert!(!stale.exists(), "the dead writer's file is removed");
    assert!(live.exists(), "a live writer's file is kept");
    assert!(m.join("sgf/game-00002.sgf").exists());
    fs::remove_dir_all(w).unwrap();
}

/// An `--index` that is a compression bomb (megabytes of zeros in a few kilobytes of xz) is
/// refused from its first bytes: no header line, so no index; nothing more is unpacked.
#[test]
fn an_index_without_a_header_line_is_refused_before_it_is_unpacked() {
    use std::io::Write as _;
    let w = work("index-bomb");
    let bomb = w.join("bomb.csv.xz");
    let mut xz = liblzma::write::XzEncoder::new(fs::File::create(&bomb).unwrap(), 1);
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..32 {
        xz.write_all(&zeros).unwrap();
    }
    xz.finish().unwrap();
    assert!(fs::metadata(&bomb).unwrap().len() < 100_000);
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sgf");
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        fixtures,
        "--index",
        &bomb.display().to_string(),
        "--out",
        &w.join("ds").display().to_string(),
    ]);
    assert!(
        r.refused() && r.stderr.contains("hold no CSV header line: not an index"),
        "{}",
        r.stderr
    );
    assert!(!w.join("ds").exists());
    fs::remove_dir_all(w).unwrap();
}

/// An `--index` that names none of the games read is said, not silently ignored.
#[test]
fn an_index_matching_no_game_is_reported() {
    let w = work("index-nomatch");
    let index = w.join("index.csv");
    fs::write(&index, "game_id,BR,WR\nnot-a-game,5d,5d\n").unwrap();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sgf");
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        fixtures,
        "--index",
        &index.display().to_string(),
        "--out",
        &w.join("ds").display().to_string(),
    ]);
    assert!(r.stderr.contains("names none of the"), "{}", r.stderr);
    fs::remove_dir_all(w).unwrap();
}

/// A file name that is not UTF-8 keeps every byte in `games.csv` (`%NN` for the others), so
/// two such names never read the same, as U+FFFD would make them.
#[test]
fn names_that_are_not_utf8_keep_their_bytes_in_games_csv() {
    use std::os::unix::ffi::OsStrExt;
    let w = work("not-utf8");
    let sgfs = w.join("sgfs");
    fs::create_dir_all(&sgfs).unwrap();
    let game = "(;GM[1]SZ[9]KM[6.5]RE[B+R];B[ee];W[cc];B[gg])";
    for name in [&b"a\xff.sgf"[..], &b"a\xfe.sgf"[..]] {
        fs::write(sgfs.join(std::ffi::OsStr::from_bytes(name)), game).unwrap();
    }
    let out = w.join("ds");
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &sgfs.display().to_string(),
        "--min-moves",
        "0",
        "--keep-duplicates",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(r.ok(), "{}", r.stderr);
    let csv = fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(
        csv.contains("a%FF.sgf") && csv.contains("a%FE.sgf"),
        "{csv}"
    );
    assert!(!csv.contains('\u{fffd}'), "{csv}");
    fs::remove_dir_all(w).unwrap();
}

/// `akushu analysis` as a long-lived server: a query line over 1 MiB is dropped with
/// KataGo's parse error and the next query is still answered; stdin that is a directory
/// ends the input with a message instead of endless error lines.
#[test]
fn the_analysis_server_caps_lines_and_ends_on_unreadable_input() {
    let huge = format!("{{\"id\":\"big\",\"pad\":\"{}\"}}", "x".repeat(2 << 20));
    let next = r#"{"id":"after","moves":[],"maxVisits":5}"#;
    let run = common::akushu_in(
        &["analysis", "--engine", "uct:sims=5"],
        &format!("{huge}\n{next}\n"),
        60,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].contains("\"error\"") && !lines[0].contains("xxxx"),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains("\"id\":\"after\""), "{}", lines[1]);

    let dir = std::fs::File::open(env!("CARGO_MANIFEST_DIR")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["analysis", "--engine", "uct:sims=5"])
        .stdin(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "{} bytes written", out.stdout.len());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reading stdin"), "{stderr}");
}

/// A copy of `models/cnn-small` in `dir` whose weights hold NaNs (no checksum file, so the
/// weights themselves are what a load refuses): 64 bytes of 0xFF, each aligned four a NaN,
/// three quarters into the file, among the tensors' data.
fn nan_network(dir: &Path) -> PathBuf {
    let net = dir.join("nan-net");
    fs::create_dir_all(&net).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn-small");
    fs::copy(from.join("config.json"), net.join("config.json")).unwrap();
    let mut bytes = fs::read(from.join("model.bpk")).unwrap();
    let at = bytes.len() * 3 / 4;
    bytes[at..at + 64].fill(0xff);
    fs::write(net.join("model.bpk"), bytes).unwrap();
    net
}

/// The loop checks everything it can before it writes: each bad config is refused with its
/// reason and leaves no folder behind (a folder written by a refused start would refuse
/// the corrected config as "another loop").
#[test]
fn the_loop_refuses_bad_configs_before_writing_anything() {
    let w = work("loop-checks");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let quick = fs::read_to_string(root.join("experiments/loops/quick.toml")).unwrap();
    let nan = nan_network(&w);
    let edit = |from: &str, to: &str| {
        assert!(quick.contains(from), "quick.toml no longer has {from:?}");
        quick.replacen(from, to, 1)
    };
    let engine_line = quick.lines().find(|l| l.starts_with("engine = ")).unwrap();
    let cases = [
        (
            "unknown-key",
            edit(
                "prune_count=board,policy",
                "prune_count=board,bogus=3,policy",
            ),
            "bogus",
        ),
        (
            "flat",
            edit(
                engine_line,
                "engine = \"flat:sims=100,prune=nn:{net}:60@1\"",
            ),
            "flat:sims=100",
        ),
        (
            "nan-start",
            edit(
                "start = \"models/cnn-small\"",
                &format!("start = \"{}\"", nan.display()),
            ),
            "NaN",
        ),
        (
            "gate-jobs",
            edit("jobs = 2\n\n[eval]", "jobs = 0\n\n[eval]"),
            "jobs",
        ),
        (
            "gate-max-moves",
            edit("[gate]\n", "[gate]\nmax_moves = 0\n"),
            "max_moves",
        ),
        (
            "selfplay-max-moves",
            edit("[selfplay]\n", "[selfplay]\nmax_moves = 0\n"),
            "max_moves",
        ),
        (
            "gate-games",
            edit("[gate]\ngames = 4", "[gate]\ngames = 0"),
            "gate.games",
        ),
        ("no-test", edit("test = 0.2", "test = 0"), "data.test"),
    ];
    for (name, text, reason) in cases {
        let config = w.join(format!("{name}.toml"));
        fs::write(&config, text).unwrap();
        let out = w.join(format!("out-{name}"));
        let r = akushu(&["loop", &s(&config), "--out", &s(&out), "--quiet"]);
        assert!(r.refused(), "{name}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(reason), "{name}: {}", r.stderr);
        assert!(
            !out.exists(),
            "{name}: the refused loop wrote {}",
            out.display()
        );
    }
    fs::remove_dir_all(w).unwrap();
}

/// A misspelt network in `selfplay --engine` is refused before the folder is created (and
/// its lock is gone with the command).
#[test]
fn selfplay_refuses_a_misspelt_engine_before_claiming_its_folder() {
    let w = work("selfplay-typo");
    let out = w.join("sp");
    let r = akushu(&[
        "selfplay",
        "--engine",
        "uct:sims=5,policy=nn:models/cnn-smal",
        "--games",
        "1",
        "--out",
        &s(&out),
        "--quiet",
    ]);
    assert!(r.refused(), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("cnn-smal"), "{}", r.stderr);
    let left: Vec<_> = fs::read_dir(&w)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "the refused run left {left:?}");
    fs::remove_dir_all(w).unwrap();
}

/// A folder is what it is, however it is spelled: a match resumed with its network folder
/// named by another path (the loop's gate, whose players embed `--out` as typed) is the same
/// match, and a second self-play run writing through a symbolic link meets the first one's
/// lock.
#[test]
fn a_folder_is_one_folder_however_it_is_spelled() {
    let w = work("spellings");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let games = w.join("m");
    let player = |net: &str| format!("uct:sims=5,policy=nn:{net}");
    let play = |black: &str, n: &str| {
        akushu(&[
            "match",
            "--black",
            black,
            "--white",
            "random",
            "--games",
            n,
            "--jobs",
            "1",
            "--max-moves",
            "30",
            "--extend",
            "--out",
            &s(&games),
            "--quiet",
        ])
    };
    let r = play(&player("models/cnn-small"), "1");
    assert!(r.ok(), "{}", r.stderr);
    let absolute = root.join("models/./cnn-small");
    let r = play(&player(&s(&absolute)), "2");
    assert!(
        r.ok(),
        "resumed with the network's absolute path: {}",
        r.stderr
    );
    let rows = fs::read_to_string(games.join("games.csv")).unwrap();
    assert_eq!(rows.lines().count(), 3, "{rows}");

    let real = w.join("sp");
    fs::create_dir(&real).unwrap();
    let link = w.join("sp-link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    // The first writer: this test's own (live) process holds the folder's lock.
    fs::write(w.join("sp.lock"), format!("{}\n", std::process::id())).unwrap();
    let r = akushu(&[
        "selfplay",
        "--engine",
        "uct:sims=5",
        "--games",
        "1",
        "--out",
        &s(&link),
        "--quiet",
    ]);
    assert!(r.refused(), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("another akushu"), "{}", r.stderr);
    assert!(!w.join("sp-link.lock").exists());
    fs::remove_dir_all(w).unwrap();
}

/// A self-play resume compares engines by their resolved configuration: `c=0.4` is the
/// default, so `uct:sims=5,c=0.4` continues a run of `uct:sims=5`; another `c` does not.
#[test]
fn selfplay_resumes_an_engine_spelled_with_its_defaults() {
    let w = work("selfplay-spelling");
    let out = w.join("sp");
    let run = |engine: &str, games: &str| {
        akushu(&[
            "selfplay",
            "--engine",
            engine,
            "--games",
            games,
            "--jobs",
            "1",
            "--max-moves",
            "30",
            "--out",
            &s(&out),
            "--quiet",
        ])
    };
    let r = run("uct:sims=5", "1");
    assert!(r.ok(), "{}", r.stderr);
    let r = run("uct:sims=5,c=0.4", "2");
    assert!(r.ok(), "{}", r.stderr);
    let rows = fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(rows.lines().count(), 3, "{rows}");
    let r = run("uct:sims=5,c=0.5", "3");
    assert!(r.refused(), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("different self-play run"), "{}", r.stderr);
    fs::remove_dir_all(w).unwrap();
}

/// A `--mix` dataset whose training split is empty is refused before the model folder is
/// made, instead of mixing in nothing while the run reports it mixed.
#[test]
fn train_refuses_a_mix_with_no_training_positions() {
    let w = work("empty-mix");
    let sgf = good_sgf(&w);
    let data = w.join("test-only");
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &s(&sgf),
        "--out",
        &s(&data),
        "--min-moves",
        "0",
        "--validation",
        "0",
        "--test",
        "1",
        "--quiet",
    ]);
    assert!(r.ok(), "{}", r.stderr);
    let out = w.join("model");
    let r = akushu(&[
        "train",
        "--model",
        "mlp",
        "--synthetic-games",
        "20",
        "--mix",
        &format!("{}=0.3", s(&data)),
        "--epochs",
        "1",
        "--out",
        &s(&out),
        "--quiet",
    ]);
    assert!(r.refused(), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("test-only") && r.stderr.contains("no position"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
    fs::remove_dir_all(w).unwrap();
}

/// `kgs-time_settings` with an overtime of no periods, no stones or no period time has no
/// overtime: main time is all there is, and no move is budgeted a period it does not have
/// (`byoyomi 0 5 0` once gave every move 3.9 s).
#[test]
fn kgs_time_settings_without_overtime_budget_no_overtime() {
    use akushu::search::clock::{Clock, DEFAULT_SAFETY, TimeControl};
    for no_overtime in [
        &["byoyomi", "0", "5", "0"][..],
        &["byoyomi", "0", "0", "5"],
        &["canadian", "0", "5", "0"],
        &["canadian", "0", "0", "5"],
    ] {
        let control = TimeControl::from_kgs(no_overtime).unwrap();
        assert_eq!(
            control,
            TimeControl::Absolute { main: 0.0 },
            "{no_overtime:?}"
        );
        let budget = Clock::new(control).budget(0, DEFAULT_SAFETY).unwrap();
        assert!(budget <= 0.01, "{no_overtime:?}: {budget} s");
    }
    // A real overtime is kept.
    let with = TimeControl::from_kgs(&["byoyomi", "0", "5", "1"]).unwrap();
    assert!(Clock::new(with).budget(0, DEFAULT_SAFETY).unwrap() > 3.0);
}

/// A bench of no work is refused by its flag (`--games 0`, `--steps 0`, `--batch-size 0`,
/// `--moves 0`: once rates of nothing, or a game played for `--games 0`), and a CSV path that
/// cannot be written is refused before the measuring, not after it.
#[test]
fn benches_refuse_no_work_and_an_unwritable_csv_before_measuring() {
    let w = work("bench-args");
    fs::create_dir_all(&w).unwrap();
    let csv = s(&w.join("b.csv"));
    for (args, says) in [
        (
            vec![
                "bench",
                "selfplay",
                "--engine",
                "uct:sims=8",
                "--games",
                "0",
            ],
            "games: 0 is not",
        ),
        (
            vec!["bench", "train", "--steps", "0", "--out", &csv],
            "steps: 0 is not",
        ),
        (
            vec!["bench", "train", "--batch-size", "64,0", "--out", &csv],
            "batch size: 0 is not",
        ),
        (
            vec!["bench", "search", "--moves", "0", "--out", &csv],
            "moves: 0 is not",
        ),
    ] {
        let r = akushu_in(&args, "", 60);
        assert!(
            r.refused() && r.stderr.contains(says),
            "{args:?}: {}",
            r.stderr
        );
    }
    let dir = s(&w);
    for args in [
        vec![
            "bench",
            "search",
            "--sims",
            "10",
            "--moves",
            "1",
            "--engine",
            "uct:sims={sims}",
            "--out",
            &dir,
        ],
        vec![
            "bench",
            "train",
            "--model",
            "mlp",
            "--steps",
            "1",
            "--threads",
            "1",
            "--out",
            &dir,
        ],
    ] {
        let r = akushu_in(&args, "", 120);
        assert!(
            r.refused() && r.stderr.contains("is a directory"),
            "{args:?}: {}",
            r.stderr
        );
        // Nothing was measured: no result row was printed before the refusal.
        assert!(
            !r.stdout.contains("sims/s") && !r.stdout.contains("examples/s"),
            "{args:?}: {}",
            r.stdout
        );
    }
    fs::remove_dir_all(w).unwrap();
}
