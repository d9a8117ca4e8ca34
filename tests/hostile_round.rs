//! A further round of careless and hostile use through the real binary: full disks, second
//! writers, SGF setups the analysis commands read, analysis queries and experiment files
//! that make no sense. Every case ends with a clear refusal naming what is wrong, or does
//! the right thing; nothing good is replaced by something partial.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{Run, akushu_in, s, scratch};

fn akushu(args: &[&str]) -> Run {
    akushu_in(args, "", 120)
}

/// A fresh scratch folder for one test.
fn work(name: &str) -> PathBuf {
    scratch("round", name)
}

fn fixtures() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sgf").to_string()
}

/// Every file below `dir` with its bytes.
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
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// A small tmpfs mounted at a fresh folder, unmounted when dropped: a real full disk.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts `size` (as `mount -o size=` reads it), or says why not and returns `None`
    /// (mounting needs root, or a container that allows it).
    fn mount(name: &str, size: &str) -> Option<Tmpfs> {
        let dir = work(name);
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!(
                "skipped: cannot mount a tmpfs at {} (needs root)",
                dir.display()
            );
            let _ = fs::remove_dir_all(&dir);
            return None;
        }
        Some(Tmpfs(dir))
    }

    /// Fills the disk but for about `free` bytes.
    fn fill_but(&self, free: u64) {
        let _ = fs::remove_file(self.0.join("fill"));
        let stat = nix_free(&self.0);
        let fill = stat.saturating_sub(free);
        fs::write(self.0.join("fill"), vec![0u8; fill as usize]).unwrap();
    }

    fn unfill(&self) {
        fs::remove_file(self.0.join("fill")).unwrap();
    }
}

/// Bytes free on the file system holding `dir`.
fn nix_free(dir: &Path) -> u64 {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: statvfs on a valid NUL-terminated path into a zeroed struct it fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, 0);
    st.f_bavail as u64 * st.f_frsize as u64
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A full disk: every command's error names the file it could not write, a dataset that was
/// there stays whole, and once space is back the same command finishes (a match, self-play
/// or loop folder that got only its marker before the disk filled is started afresh, not
/// refused as a folder of unknown games).
#[test]
fn a_full_disk_names_the_file_and_a_rerun_finishes() {
    let Some(disk) = Tmpfs::mount("enospc", "256k") else {
        return;
    };
    let d = &disk.0;
    let ds = d.join("ds");
    let r = akushu(&["dataset", "build", "--sgf", &fixtures(), "--out", &s(&ds)]);
    assert!(r.ok(), "{}", r.stderr);
    let good = snapshot(&ds);

    disk.fill_but(4096);
    // A rebuild into the same folder: refused by the disk, the old dataset untouched.
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &fixtures(),
        "--out",
        &s(&ds),
        "--seed",
        "2",
    ]);
    assert!(r.refused(), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{}.tmp-", s(&ds)))
            && r.stderr.contains("No space left on device"),
        "the file is named: {}",
        r.stderr
    );
    assert_eq!(snapshot(&ds), good, "the old dataset is whole");
    let run_match = || {
        akushu(&[
            "match",
            "--black",
            "random",
            "--white",
            "random",
            "--games",
            "2",
            "--quiet",
            "--out",
            &s(&d.join("m")),
        ])
    };
    let run_selfplay = || {
        akushu(&[
            "selfplay",
            "--engine",
            "uct:sims=10",
            "--games",
            "1",
            "--quiet",
            "--out",
            &s(&d.join("sp")),
        ])
    };
    // Room for the lock and the folder's marker, not for its header: the disk fills
    // right after the folder was marked, and only the scaffolding is there.
    let runs: [(&str, &dyn Fn() -> Run, &str); 2] = [
        ("m", &run_match, "match.toml"),
        ("sp", &run_selfplay, "selfplay.toml"),
    ];
    for (folder, run, header) in runs {
        disk.fill_but(8192);
        let r = run();
        assert!(r.refused(), "{folder}: {}", r.stderr);
        assert!(
            r.stderr.contains(&s(d)) && r.stderr.contains("No space left on device"),
            "{folder}: the file is named: {}",
            r.stderr
        );
        let dir = d.join(folder);
        assert!(dir.join(".akushu-output").exists() && !dir.join(header).exists());
        disk.unfill();
        let r = run();
        assert!(r.ok(), "{folder} once space is back: {}", r.stderr);
    }
    assert!(d.join("m/games.csv").exists() && d.join("sp/games.csv").exists());
}

/// A second writer on a match, self-play, loop, merge or experiment folder is refused while
/// the first holds it (here the lock names this test's own live pid), and writes nothing.
#[test]
fn a_second_writer_is_refused_on_every_folder_output() {
    let w = work("locks");
    let lock = |out: &Path| {
        let mut name = out.file_name().unwrap().to_os_string();
        name.push(".lock");
        fs::write(
            out.with_file_name(name),
            format!("{}\n", std::process::id()),
        )
        .unwrap();
    };
    let exp = w.join("e.toml");
    fs::write(
        &exp,
        "name = \"locked\"\ntitle = \"t\"\n[match]\ngames = 1\nkomi = 6.5\nseed = 1\n\
         [players]\nblack = \"random\"\nwhite = \"random\"\n[[arm]]\nlabel = \"a\"\n",
    )
    .unwrap();
    let loop_toml = concat!(env!("CARGO_MANIFEST_DIR"), "/experiments/loops/quick.toml");
    let (m, sp, lp, merged, exps) = (
        w.join("m"),
        w.join("sp"),
        w.join("lp"),
        w.join("merged"),
        w.join("exps"),
    );
    fs::create_dir_all(&exps).unwrap();
    for out in [&m, &sp, &lp, &merged, &exps.join("locked")] {
        lock(out);
    }
    let cases: Vec<Vec<String>> = vec![
        vec![
            "match",
            "--black",
            "random",
            "--white",
            "random",
            "--games",
            "1",
            "--out",
            &s(&m),
        ]
        .into_iter()
        .map(String::from)
        .collect(),
        [
            "selfplay",
            "--engine",
            "uct:sims=10",
            "--games",
            "1",
            "--out",
            &s(&sp),
        ]
        .map(String::from)
        .to_vec(),
        ["loop", loop_toml, "--out", &s(&lp)]
            .map(String::from)
            .to_vec(),
        ["match", "merge", &s(&m), "--out", &s(&merged)]
            .map(String::from)
            .to_vec(),
        ["experiment", "run", &s(&exp), "--out", &s(&exps)]
            .map(String::from)
            .to_vec(),
    ];
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = akushu(&args);
        assert!(
            r.refused() && r.stderr.contains("being written by another akushu"),
            "{args:?}: {}",
            r.stderr
        );
    }
    for out in [&m, &sp, &lp, &merged, &exps.join("locked")] {
        assert!(!out.exists(), "{} written under a lock", out.display());
    }
    fs::remove_dir_all(w).unwrap();
}

/// `analyze` and `yose` read a file as `dataset build` and GTP `loadsgf` do: Latin-1 text
/// without `CA`, setup in a later node before the first move, `AE` clearing a stone; and
/// they refuse what those refuse: two moves in one node, a negative board size, a komi
/// outside the one range.
#[test]
fn analyze_and_yose_read_records_as_every_other_command() {
    let w = work("analyze-records");
    let file = |name: &str, bytes: &[u8]| {
        let p = w.join(name);
        fs::write(&p, bytes).unwrap();
        s(&p)
    };
    // Board rows of the diagram: `9  X . ...` is row 9 from A to J.
    let row9 = |r: &Run| {
        r.stdout
            .lines()
            .find(|l| l.starts_with("9 "))
            .unwrap_or_default()
            .to_string()
    };
    for (name, bytes, want_row9) in [
        (
            "latin1.sgf",
            &b"(;SZ[9]PB[J\xf8rgen];B[aa];W[cc])"[..],
            "9  X . . . . . . . .  9",
        ),
        (
            "later-setup.sgf",
            b"(;SZ[9];AB[aa][ba];W[ee])",
            "9  X X . . . . . . .  9",
        ),
        (
            "cleared.sgf",
            b"(;SZ[9]AB[aa][ba]AW[cc];AE[aa];W[ee])",
            "9  . X . . . . . . .  9",
        ),
    ] {
        let r = akushu(&["analyze", "--sgf", &file(name, bytes)]);
        assert!(r.ok(), "{name}: {}", r.stderr);
        assert_eq!(row9(&r), want_row9, "{name}: {}", r.stdout);
    }
    for (name, bytes, why) in [
        (
            "two-moves.sgf",
            &b"(;SZ[9];B[ee]W[cc])"[..],
            "more than one move",
        ),
        ("negative-size.sgf", b"(;SZ[-9];B[ee])", "board size -9"),
        ("huge-komi.sgf", b"(;SZ[9]KM[1e30]AB[aa];B[ee])", "komi"),
    ] {
        let path = file(name, bytes);
        for args in [vec!["analyze", "--sgf", &path], vec!["yose", &path]] {
            let r = akushu(&args);
            assert!(
                r.refused() && r.stderr.contains(name) && r.stderr.contains(why),
                "{args:?}: {}",
                r.stderr
            );
        }
    }
    fs::remove_dir_all(w).unwrap();
}

/// An experiment whose arms play one match (a sweep over a variable no player uses, or two
/// arms with the same players) is refused before any game: it would report the same games
/// as different results.
#[test]
fn arms_that_play_the_same_match_are_refused() {
    let w = work("same-arms");
    let head = "name = \"t\"\ntitle = \"t\"\n[match]\ngames = 1\nkomi = 6.5\nseed = 1\n\
                [players]\nblack = \"random\"\nwhite = \"random\"\n";
    for (name, tail) in [
        ("unused-sweep", "[sweep]\nvar = \"x\"\nvalues = [1, 2]\n"),
        (
            "twin-arms",
            "[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"b\"\n",
        ),
    ] {
        let file = w.join(format!("{name}.toml"));
        fs::write(&file, format!("{head}{tail}")).unwrap();
        let out = w.join(name);
        let r = akushu(&["experiment", "run", &s(&file), "--out", &s(&out)]);
        assert!(
            r.refused() && r.stderr.contains("play the same match"),
            "{name}: {}",
            r.stderr
        );
        assert!(!out.join("t").exists(), "{name}: nothing played");
    }
    fs::remove_dir_all(w).unwrap();
}

/// An analysis query whose `initialStones` name one point twice (here as both colours) is
/// refused on that field, not answered on whichever stone came last.
#[test]
fn an_analysis_query_with_a_point_set_twice_is_refused() {
    let q = r#"{"id":"q","moves":[],"initialStones":[["B","E5"],["W","E5"]],"rules":"tromp-taylor","boardXSize":9,"boardYSize":9,"maxVisits":10}"#;
    let r = akushu_in(
        &["analysis", "--engine", "uct:sims=10"],
        &format!("{q}\n"),
        60,
    );
    assert!(r.ok(), "{}", r.stderr);
    assert!(
        r.stdout.contains(r#""field":"initialStones""#) && r.stdout.contains("E5"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("moveInfos"), "{}", r.stdout);
}

/// A training of no epochs writes no weights, so it is refused wherever the count is given
/// (`--epochs`, a config file, a loop's `[train]`) before anything is written, instead of
/// reporting "model in DIR" for a directory without a model, or failing a loop's gate
/// after its self-play.
#[test]
fn zero_epochs_are_refused_before_anything_is_written() {
    let w = work("zero-epochs");
    let out = w.join("m");
    let r = akushu(&[
        "train",
        "--synthetic-games",
        "5",
        "--model",
        "mlp",
        "--epochs",
        "0",
        "--out",
        &s(&out),
    ]);
    assert!(
        r.refused()
            && r.stderr
                .contains("epochs: 0 is not in the allowed range 1 to"),
        "{}",
        r.stderr
    );
    let cfg = w.join("c.toml");
    fs::write(&cfg, "epochs = 0\n").unwrap();
    let r = akushu(&[
        "train",
        "--config",
        &s(&cfg),
        "--model",
        "mlp",
        "--synthetic-games",
        "5",
        "--out",
        &s(&out),
    ]);
    assert!(
        r.refused() && r.stderr.contains("epochs: 0 is not in the allowed range"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
    let quick = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/experiments/loops/quick.toml"
    ))
    .unwrap();
    let loop_toml = w.join("loop.toml");
    let start = concat!(env!("CARGO_MANIFEST_DIR"), "/models/cnn-small");
    fs::write(
        &loop_toml,
        quick
            .replace("epochs = 1", "epochs = 0")
            .replace("\"models/cnn-small\"", &format!("{start:?}")),
    )
    .unwrap();
    let lp = w.join("lp");
    let r = akushu(&["loop", &s(&loop_toml), "--out", &s(&lp)]);
    assert!(
        r.refused() && r.stderr.contains("train.epochs: 0"),
        "{}",
        r.stderr
    );
    assert!(!lp.exists());
    fs::remove_dir_all(w).unwrap();
}

/// A dataset of two committed games (128 positions) to label, in `dir`.
fn label_data(dir: &Path) -> PathBuf {
    let out = dir.join("ds");
    let games = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/report/runs/strong_gnugo/strong_2000/sgf.tar.xz"
    );
    let r = akushu(&[
        "dataset",
        "build",
        "--sgf",
        games,
        "--limit",
        "2",
        "--out",
        &s(&out),
        "--quiet",
    ]);
    assert!(r.ok(), "{}", r.stderr);
    out
}

/// `scripts/hostile_teacher.py` as a teacher command that answers `after` queries well and
/// then misbehaves as `mode` says (`env`: more of its settings, `NAME=VALUE ...`); `None`,
/// with a note, without python3.
fn hostile_teacher(mode: &str, after: u32, env: &str) -> Option<String> {
    if !common::python3("the hostile teacher") {
        return None;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hostile_teacher.py");
    Some(format!(
        "env HT_MODE={mode} HT_N={after} {env} python3 {script}"
    ))
}

/// `dataset label` of `data` into `out` by `teacher`, in chunks of 16 positions.
fn label_with_teacher(data: &Path, teacher: &str, out: &Path) -> Run {
    akushu(&[
        "dataset",
        "label",
        &s(data),
        "--teacher",
        teacher,
        "--out",
        &s(out),
        "--quiet",
        "--chunk",
        "16",
        "--timeout",
        "60",
    ])
}

/// An answer whose numbers are not a label (visits that are no count, a policy that is not
/// a distribution over the legal moves, a score lead no 9x9 game has) stops the run naming
/// the position and what is wrong, instead of being stored clamped or as 0 visits; the
/// chunk labelled before is kept.
#[test]
fn a_teacher_answer_that_is_not_a_label_is_refused_by_name() {
    let w = work("teacher-numbers");
    let data = label_data(&w);
    for (mode, says) in [
        ("neg-visits", "visits -5 is not a count"),
        ("float-visits", "visits 2.5 is not a count"),
        ("string-visits", "visits \"7\" is not a count"),
        ("pol-sum-big", "not a move distribution"),
        ("pol-zero", "sum to 0, not 1"),
        ("huge-score", "score lead 1000000 is beyond any 9x9 score"),
    ] {
        let Some(teacher) = hostile_teacher(mode, 20, "") else {
            return;
        };
        let out = w.join(mode);
        let r = label_with_teacher(&data, &teacher, &out);
        assert!(r.refused(), "{mode}: {}", r.stderr);
        assert!(
            r.stderr.contains(says) && r.stderr.contains("train record 20"),
            "{mode}: {}",
            r.stderr
        );
        let rows = fs::read_to_string(out.join("labels.csv")).unwrap();
        assert_eq!(
            rows.lines().count(),
            2,
            "{mode}: the first chunk kept: {rows}"
        );
    }
    fs::remove_dir_all(w).unwrap();
}

/// A teacher that writes an answer line without end is stopped once the line passes the
/// cap on an answer's length, with an error saying so, instead of its line filling the
/// labeller's memory until the --timeout.
#[test]
fn a_teacher_that_never_ends_a_line_is_stopped_at_the_cap() {
    let Some(teacher) = hostile_teacher("endless", 5, "") else {
        return;
    };
    let w = work("teacher-endless");
    let data = label_data(&w);
    let r = label_with_teacher(&data, &teacher, &w.join("out"));
    assert!(r.refused(), "{}", r.stderr);
    assert!(r.stderr.contains("longer than 16 MiB"), "{}", r.stderr);
    fs::remove_dir_all(w).unwrap();
}

/// A teacher that writes bytes that are not UTF-8 to stderr, then logs on, keeps its stderr
/// read: the labeller does not stop reading it (which would kill a teacher that dies on a
/// closed pipe, as a C++ one does, or block it on a full pipe), and the run finishes.
#[test]
fn a_teacher_whose_stderr_is_not_utf8_is_still_read() {
    let Some(teacher) = hostile_teacher("stderr-nonutf8-flood", 5, "HT_SIGPIPE=1") else {
        return;
    };
    let w = work("teacher-stderr");
    let data = label_data(&w);
    let out = w.join("out");
    let r = label_with_teacher(&data, &teacher, &out);
    assert!(r.ok(), "{}", r.stderr);
    assert!(out.join("manifest.json").exists());
    fs::remove_dir_all(w).unwrap();
}

/// An empty --teacher is refused as such, not reported as a teacher that "closed its
/// output" with exit status 0.
#[test]
fn an_empty_teacher_command_is_refused_as_empty() {
    let w = work("teacher-empty");
    let data = label_data(&w);
    for teacher in ["", "   "] {
        let r = label_with_teacher(&data, teacher, &w.join("out"));
        assert!(r.refused(), "{teacher:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("the teacher command is empty"),
            "{teacher:?}: {}",
            r.stderr
        );
    }
    fs::remove_dir_all(w).unwrap();
}

/// The folder a killed assembly of the labelled dataset left (`dataset.tmp-PID`, its
/// process gone: a whole copy of the dataset) is removed by the next assembly.
#[test]
fn a_killed_assembly_s_copy_is_removed_by_the_next() {
    let Some(teacher) = hostile_teacher("good", 0, "") else {
        return;
    };
    let w = work("teacher-assembly");
    let data = label_data(&w);
    let out = w.join("out");
    let r = label_with_teacher(&data, &teacher, &out);
    assert!(r.ok(), "{}", r.stderr);
    let want = fs::read(out.join("train.akd")).unwrap();
    // What an assembly killed before its manifest leaves: its copy, and no manifest. No
    // process has this pid (above Linux's largest).
    let dead = out.join("dataset.tmp-99999999");
    fs::create_dir_all(&dead).unwrap();
    fs::write(dead.join("train.akd"), b"half").unwrap();
    fs::remove_file(out.join("manifest.json")).unwrap();
    let r = label_with_teacher(&data, &teacher, &out);
    assert!(r.ok(), "{}", r.stderr);
    assert!(!dead.exists(), "the dead assembly's copy is gone");
    assert!(out.join("manifest.json").exists());
    assert_eq!(fs::read(out.join("train.akd")).unwrap(), want);
    fs::remove_dir_all(w).unwrap();
}

/// A labelling run killed while it wrote its first header (only its marker, its chunks
/// folder and `label.toml.tmp-PID` of a process now gone) resumes: the half-written header
/// is litter, not the sign of a folder of unknown games to refuse.
#[test]
fn a_run_killed_writing_its_first_header_resumes() {
    let Some(teacher) = hostile_teacher("good", 0, "") else {
        return;
    };
    let w = work("teacher-header");
    let data = label_data(&w);
    let (out, whole) = (w.join("out"), w.join("whole"));
    let r = label_with_teacher(&data, &teacher, &whole);
    assert!(r.ok(), "{}", r.stderr);
    fs::create_dir_all(out.join("chunks")).unwrap();
    fs::copy(whole.join(".akushu-output"), out.join(".akushu-output")).unwrap();
    // No process has this pid (above Linux's largest).
    fs::write(out.join("label.toml.tmp-99999999"), b"[label]\ndata = ").unwrap();
    let r = label_with_teacher(&data, &teacher, &out);
    assert!(r.ok(), "{}", r.stderr);
    assert!(!out.join("label.toml.tmp-99999999").exists());
    assert_eq!(
        fs::read(out.join("train.akd")).unwrap(),
        fs::read(whole.join("train.akd")).unwrap()
    );
    fs::remove_dir_all(w).unwrap();
}

/// One member of a hand-built zip archive: its file name, zip method (0 stored, 8 deflate),
/// its bytes as they lie in the archive, and the inflated size and CRC-32 it declares (a
/// size of 4 GiB or more goes in a zip64 extra field, as numpy writes it).
struct RawMember {
    name: String,
    method: u16,
    data: Vec<u8>,
    size: u64,
    crc: u32,
}

impl RawMember {
    /// A stored member holding `data`.
    fn stored(name: &str, data: Vec<u8>) -> RawMember {
        RawMember {
            name: name.into(),
            method: 0,
            size: data.len() as u64,
            crc: crc32fast::hash(&data),
            data,
        }
    }
}

/// A zip archive of `members`, with what each declares, however false.
fn raw_zip(members: &[RawMember]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for m in members {
        let offset = out.len() as u32;
        let zip64 = m.size >= u64::from(u32::MAX);
        let size32 = if zip64 { u32::MAX } else { m.size as u32 };
        let extra: Vec<u8> = if zip64 {
            [
                &1u16.to_le_bytes()[..],
                &8u16.to_le_bytes(),
                &m.size.to_le_bytes(),
            ]
            .concat()
        } else {
            Vec::new()
        };
        // Version, flags, method, time and date, CRC, sizes, name and extra lengths.
        let fields: Vec<u8> = [
            &45u16.to_le_bytes()[..],
            &0u16.to_le_bytes(),
            &m.method.to_le_bytes(),
            &[0; 4],
            &m.crc.to_le_bytes(),
            &(m.data.len() as u32).to_le_bytes(),
            &size32.to_le_bytes(),
            &(m.name.len() as u16).to_le_bytes(),
            &(extra.len() as u16).to_le_bytes(),
        ]
        .concat();
        out.extend(0x0403_4b50u32.to_le_bytes());
        out.extend(&fields);
        out.extend(m.name.as_bytes());
        out.extend(&extra);
        out.extend(&m.data);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend(45u16.to_le_bytes());
        central.extend(&fields);
        // No comment, disk 0, no attributes; then where the local header is.
        central.extend([0; 10]);
        central.extend(offset.to_le_bytes());
        central.extend(m.name.as_bytes());
        central.extend(&extra);
    }
    let (cd_offset, cd_size, n) = (out.len() as u32, central.len() as u32, members.len() as u16);
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0; 4]);
    out.extend(n.to_le_bytes());
    out.extend(n.to_le_bytes());
    out.extend(cd_size.to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend([0; 2]);
    out
}

/// The `.npy` bytes akushu writes for `array` (as the only member of an archive).
fn npy_of(array: &akushu::util::npz::Array) -> Vec<u8> {
    let zip = akushu::util::npz::write_npz(&[("a", array)]);
    let size = u32::from_le_bytes(zip[18..22].try_into().unwrap()) as usize;
    let at = 30 + u16::from_le_bytes([zip[26], zip[27]]) as usize;
    zip[at..at + size].to_vec()
}

fn deflated(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// `model import` refuses each hostile file by name before it writes anything: a zip64
/// member declaring 2^62 bytes (once an allocation failure that aborted), a FIFO (once a
/// wait without end), a device and an over-long file (once read without bound), a member
/// that inflates far beyond its tensor (a zip bomb), one tensor name twice (once the second
/// copy kept in silence) and a config without its `cnn` shape (once imported with the
/// default shape). The same export, unedited, imports.
#[test]
fn a_hostile_model_import_is_refused_before_anything_is_written() {
    use akushu::net::export::MAX_EXPORT_BYTES;
    use akushu::net::{NetKind, SavedModel, TrainConfig};
    use akushu::util::npz::{Array, Values, read_npz, write_npz};
    let w = work("import");
    // A model of the default CNN shape, exported by the binary.
    let config = TrainConfig::new(NetKind::Cnn);
    let model = SavedModel::Cnn(
        Box::new(config.cnn.init(&akushu::net::cpu_device())),
        config.cnn.clone(),
    );
    let dir = w.join("model");
    fs::create_dir_all(&dir).unwrap();
    akushu::net::export::save_model(&dir, &config, &model).unwrap();
    let base = w.join("base.npz");
    let r = akushu(&["model", "export", &s(&dir), "--out", &s(&base)]);
    assert!(r.ok(), "{}", r.stderr);
    let arrays = read_npz(&fs::read(&base).unwrap(), u64::MAX).unwrap();
    let import = |file: &Path, case: &str| {
        let out = w.join(format!("imported-{case}"));
        (
            akushu(&["model", "import", &s(file), "--out", &s(&out)]),
            out,
        )
    };
    let (r, out) = import(&base, "base");
    assert!(r.ok() && out.join("model.bpk").exists(), "{}", r.stderr);

    // Every member stored as akushu writes it, but `stem.weight` as `stem`.
    let with_stem = |stem: RawMember| {
        let mut stem = Some(stem);
        let members: Vec<RawMember> = arrays
            .iter()
            .map(|(n, a)| match n.as_str() {
                "stem.weight" => stem.take().expect("one stem"),
                _ => RawMember::stored(&format!("{n}.npy"), npy_of(a)),
            })
            .collect();
        raw_zip(&members)
    };
    let zeros = vec![0u8; 64 << 20];
    let mut cases: Vec<(&str, PathBuf, String)> = Vec::new();
    let file = |name: &str, bytes: Vec<u8>| {
        let p = w.join(name);
        fs::write(&p, bytes).unwrap();
        p
    };
    cases.push((
        "zip64",
        file(
            "zip64.npz",
            with_stem(RawMember {
                name: "stem.weight.npy".into(),
                method: 8,
                data: deflated(b"x"),
                size: 1 << 62,
                crc: 0,
            }),
        ),
        "stem.weight.npy: declares 4611686018427387904 bytes once inflated, more than the".into(),
    ));
    cases.push((
        "bomb",
        file(
            "bomb.npz",
            with_stem(RawMember {
                name: "stem.weight.npy".into(),
                method: 8,
                data: deflated(&zeros),
                size: zeros.len() as u64,
                crc: crc32fast::hash(&zeros),
            }),
        ),
        "stem.weight.npy: declares 67108864 bytes once inflated, more than the 97792 bytes \
         tensor `stem.weight` of shape [32, 14, 3, 3] can take"
            .into(),
    ));
    let mut twice: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let other_stem = Array::f32(vec![32, 14, 3, 3], vec![0.5; 32 * 14 * 9]);
    twice.push(("stem.weight", &other_stem));
    cases.push((
        "twice",
        file("twice.npz", write_npz(&twice)),
        "stem.weight.npy: the archive holds two members of this name".into(),
    ));
    let Values::U8(meta) = &arrays[0].1.values else {
        panic!("meta first")
    };
    let mut meta: serde_json::Value = serde_json::from_slice(meta).unwrap();
    meta["config"].as_object_mut().unwrap().remove("cnn");
    let meta = Array::bytes(serde_json::to_vec(&meta).unwrap());
    let mut no_cnn: Vec<(&str, &Array)> = vec![("meta", &meta)];
    no_cnn.extend(arrays[1..].iter().map(|(n, a)| (n.as_str(), a)));
    cases.push((
        "no-cnn",
        file("no-cnn.npz", write_npz(&no_cnn)),
        "`meta`'s config has no `cnn` object".into(),
    ));
    let fifo = w.join("fifo.npz");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path this test owns.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    cases.push((
        "fifo",
        fifo.clone(),
        format!(
            "{} is a FIFO (named pipe), not a regular file",
            fifo.display()
        ),
    ));
    cases.push((
        "device",
        PathBuf::from("/dev/zero"),
        "/dev/zero is a character device, not a regular file".into(),
    ));
    // Sparse: a file one byte over the bound takes no room on disk.
    let long = w.join("long.npz");
    fs::File::create(&long)
        .unwrap()
        .set_len(MAX_EXPORT_BYTES + 1)
        .unwrap();
    cases.push((
        "long",
        long.clone(),
        format!(
            "{} holds {} bytes, more than the {MAX_EXPORT_BYTES} bytes",
            long.display(),
            MAX_EXPORT_BYTES + 1
        ),
    ));
    for (case, path, says) in cases {
        let (r, out) = import(&path, case);
        assert!(r.refused(), "{case}: {}", r.stderr);
        assert!(r.stderr.contains(&says), "{case}: {}", r.stderr);
        assert!(!out.exists(), "{case}: nothing is written");
    }
    fs::remove_dir_all(w).unwrap();
}
