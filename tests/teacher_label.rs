//! `akushu dataset label` end to end, with `akushu analysis` and a scripted teacher
//! (tests/fixtures/teacher/fake_teacher.py, whose answers follow from the query) as teachers:
//! what each position's query holds, a `kill -9` and resume, shards merged, and teachers that
//! die, stall or answer wrongly.

mod common;

use std::path::{Path, PathBuf};

use akushu::dataset::format::{self, MappedSplit, VERSION_TEACHER};
use akushu::dataset::record::{POLICY_SCALE, share_to_u16};
use akushu::dataset::{Split, build::Manifest};
use common::{akushu, akushu_with, s, scratch};

const GAMES: &str = "report/runs/strong_gnugo/strong_2000/sgf.tar.xz";

/// A dataset of 6 committed games (377 positions: train 314, validation 63).
fn dataset(dir: &Path) -> PathBuf {
    let out = dir.join("ds");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(GAMES);
    let (ok, text) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &s(&src),
        "--limit",
        "6",
        "--out",
        &s(&out),
        "--quiet",
    ]);
    assert!(ok, "{text}");
    out
}

/// The scripted teacher's command in `mode`, or `None` (with a note) without python3.
fn fake(mode: &str, after: u32) -> Option<String> {
    if !common::python3("the scripted teacher") {
        return None;
    }
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/teacher/fake_teacher.py");
    Some(match mode {
        "" => format!("python3 {}", s(&script)),
        _ => format!("python3 {} {mode} {after}", s(&script)),
    })
}

fn label(data: &Path, teacher: &str, out: &Path, extra: &[&str]) -> (bool, String) {
    label_with(data, teacher, out, extra, &[])
}

/// [`label`] with `env` set for akushu and its teacher.
fn label_with(
    data: &Path,
    teacher: &str,
    out: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (bool, String) {
    let (data, out) = (s(data), s(out));
    let mut args = vec![
        "dataset",
        "label",
        &data,
        "--teacher",
        teacher,
        "--out",
        &out,
        "--quiet",
        "--chunk",
        "50",
    ];
    args.extend_from_slice(extra);
    akushu_with(&args, env)
}

/// A scratch folder `name` with the 6-game dataset and its validation split labelled per move
/// by `teacher`: (folder, dataset, labelled dataset).
fn per_move_validation(teacher: &str, name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = scratch("label", name);
    let data = dataset(&dir);
    let out = dir.join("lab");
    let (ok, text) = label(
        &data,
        teacher,
        &out,
        &["--per-move", "--splits", "validation"],
    );
    assert!(ok, "{text}");
    (dir, data, out)
}

fn split_bytes(dir: &Path, split: Split) -> Vec<u8> {
    std::fs::read(format::split_path(dir, split)).unwrap()
}

/// Every position's query holds the game so far: the scripted teacher's values follow from
/// the number of moves it was given, which is the record's move number (each game's records
/// start at its first move); the child queries' values come back as the mover's.
#[test]
fn each_query_holds_the_game_so_far_and_children_are_the_movers_values() {
    let Some(teacher) = fake("good", 0) else {
        return;
    };
    let dir = scratch("label", "history");
    let data = dataset(&dir);
    let out = dir.join("lab");
    let (ok, text) = label(
        &data,
        &teacher,
        &out,
        &[
            "--per-move",
            "--splits",
            "validation,train",
            "--limit",
            "40",
        ],
    );
    assert!(ok, "{text}");
    let m = Manifest::load(&out).unwrap();
    assert_eq!(m.format_version, VERSION_TEACHER);
    let t = m.teacher.as_ref().unwrap();
    assert_eq!(
        (t.teacher.version.as_str(), t.teacher.models.as_slice()),
        ("fake-1", &["fake-net".to_string()][..])
    );
    assert!(
        t.teacher.per_move && t.source_fingerprint == Manifest::load(&data).unwrap().fingerprint
    );
    for split in [Split::Train, Split::Validation] {
        let src = MappedSplit::open(&data, split).unwrap();
        let got = MappedSplit::open(&out, split).unwrap();
        assert_eq!(got.len(), 40, "{split:?}");
        for i in 0..got.len() {
            let p = got.get(i).unwrap();
            let mut plain = p.clone();
            plain.teacher = None;
            assert_eq!(plain, src.get(i).unwrap(), "the record itself is kept");
            let l = p.teacher.as_ref().unwrap();
            let n = p.move_number as f32;
            assert_eq!(
                l.winrate,
                ((p.move_number % 10) as f64 / 10.0 + 0.05) as f32,
                "{split:?} {i}"
            );
            assert_eq!(l.score_lead, n - 20.0);
            // The teacher's shares on a ko point or a suicide are left out, as stones are.
            let legal = p.legal_points();
            let allowed = legal.iter().filter(|&&l| l).count();
            let illegal = |q: usize| !legal[q];
            for slot in 0..81 {
                assert_eq!(l.policy[slot] == u16::MAX, illegal(slot), "legal points");
                // Ownership is black's view whoever is to move.
                let want = match p.cells[slot] {
                    1 => 64,
                    2 => -64,
                    _ => 0,
                };
                assert_eq!(l.ownership[slot], want, "{split:?} {i} point {slot}");
            }
            let share = l.policy[81] as f32 / POLICY_SCALE;
            assert!((share - 1.0 / (allowed + 1) as f32).abs() < 1e-4);
            // Each child was asked with one more move; its win rate is the opponent's.
            let child = (((p.move_number + 1) % 10) as f64 / 10.0 + 0.05) as f32;
            for slot in 0..82 {
                match l.move_winrate(slot) {
                    Some(_) => {
                        assert_eq!(
                            l.moves.as_ref().unwrap().winrate[slot],
                            share_to_u16(1.0 - child)
                        );
                        assert_eq!(l.move_score(slot), Some(20.0 - (n + 1.0)));
                    }
                    None => assert!(slot < 81 && illegal(slot)),
                }
            }
        }
    }
    assert_eq!(MappedSplit::open(&out, Split::Test).unwrap().len(), 0);
    let (ok, text) = akushu(&["dataset", "show", &s(&out), "--index", "3"]);
    assert!(
        ok && text.contains("teacher: 1 visits") && text.contains("loss against the best"),
        "{text}"
    );
}

/// A run killed (SIGKILL) after its second chunk resumes to the bytes of a run never killed,
/// and shards merged with --from equal one run too.
#[test]
fn a_killed_run_resumes_and_shards_merge_to_the_bytes_of_one_run() {
    let dir = scratch("label", "resume");
    let data = dataset(&dir);
    let teacher = format!(
        "{} analysis --engine uct:sims=4",
        env!("CARGO_BIN_EXE_akushu")
    );
    let one = dir.join("one");
    let (ok, text) = label(&data, &teacher, &one, &["--visits", "3"]);
    assert!(ok, "{text}");
    let killed = dir.join("killed");
    let args = [
        "dataset",
        "label",
        &s(&data),
        "--teacher",
        &teacher,
        "--out",
        &s(&killed),
        "--quiet",
        "--chunk",
        "50",
        "--visits",
        "3",
    ];
    let (ok, text) = akushu_with(&args, &[("AKUSHU_FAILPOINT", "label-chunk:2")]);
    assert!(!ok && text.contains("failpoint label-chunk:2"), "{text}");
    let rows = std::fs::read_to_string(killed.join("labels.csv")).unwrap();
    assert_eq!(rows.lines().count(), 3, "two chunks kept: {rows}");
    assert!(!killed.join("manifest.json").exists());
    let (ok, text) = akushu(&args);
    assert!(ok && text.contains("labelled 277 positions"), "{text}");
    let (a, b) = (dir.join("s0"), dir.join("s1"));
    for (k, d) in [(0, &a), (1, &b)] {
        let (ok, text) = label(
            &data,
            &teacher,
            d,
            &["--visits", "3", "--shard", &format!("{k}/2")],
        );
        assert!(ok && text.contains("merge the shards"), "{text}");
        assert!(
            !d.join("manifest.json").exists(),
            "a shard is not a dataset"
        );
    }
    let merged = dir.join("merged");
    let (ok, text) = label(
        &data,
        &teacher,
        &merged,
        &["--visits", "3", "--from", &s(&a), &s(&b)],
    );
    assert!(ok && text.contains("labelled 0 positions"), "{text}");
    for split in Split::ALL {
        let want = split_bytes(&one, split);
        assert_eq!(split_bytes(&killed, split), want, "{split:?}: resumed");
        assert_eq!(split_bytes(&merged, split), want, "{split:?}: merged");
    }
    let manifest = std::fs::read(one.join("manifest.json")).unwrap();
    assert_eq!(
        std::fs::read(merged.join("manifest.json")).unwrap(),
        manifest
    );
    // A shorter --limit takes the longer run's chunks that hold its records: a labelled
    // prefix, byte for byte what labelling it alone writes.
    let (short, prefix) = (dir.join("short"), dir.join("prefix"));
    let (ok, text) = label(
        &data,
        &teacher,
        &short,
        &["--visits", "3", "--limit", "100"],
    );
    assert!(ok, "{text}");
    let (ok, text) = label(
        &data,
        &teacher,
        &prefix,
        &["--visits", "3", "--limit", "100", "--from", &s(&a), &s(&b)],
    );
    assert!(ok && text.contains("labelled 0 positions"), "{text}");
    for split in Split::ALL {
        assert_eq!(
            split_bytes(&prefix, split),
            split_bytes(&short, split),
            "{split:?}: prefix"
        );
    }
    // --split-limit: one split's own limit; its chunks come from the longer run too.
    let some = dir.join("some");
    let (ok, text) = label(
        &data,
        &teacher,
        &some,
        &[
            "--visits",
            "3",
            "--splits",
            "validation",
            "--split-limit",
            "validation=50",
            "--from",
            &s(&a),
            &s(&b),
        ],
    );
    assert!(ok && text.contains("labelled 0 positions"), "{text}");
    assert_eq!(
        MappedSplit::open(&some, Split::Validation).unwrap().len(),
        50
    );
    // Another teacher's labels never join a folder: visits differ.
    let (ok, text) = label(&data, &teacher, &killed, &["--visits", "4"]);
    assert!(
        !ok && text.contains("another labelling run") && text.contains("the teacher"),
        "{text}"
    );
    let (ok, text) = label(
        &data,
        &teacher,
        &dir.join("mixed"),
        &["--visits", "4", "--from", &s(&a)],
    );
    assert!(!ok && text.contains("--from"), "{text}");
}

/// A teacher that dies, answers garbage, another id, another board size, an error, a rules
/// warning or nothing at all stops the run with an error naming the position; the chunks
/// labelled before are kept, and a good teacher then finishes the folder.
#[test]
fn bad_teachers_are_named_and_finished_chunks_kept() {
    let Some(good) = fake("", 0) else { return };
    let dir = scratch("label", "bad");
    let data = dataset(&dir);
    let cases = [
        ("die", "stopped answering"),
        ("garbage", "not a JSON object"),
        ("wrong-id", "did not ask"),
        ("big-board", "another board size"),
        ("error", "with the error \"Illegal move\" (field moves)"),
        ("rules-warning", "with the warning"),
        ("hang", "gave no answer in 2 s"),
        ("wrong-turn", "its turnNumber is"),
        (
            "all-on-stones",
            "its policy puts every share on points akushu's rules forbid here",
        ),
    ];
    for (mode, says) in cases {
        let out = dir.join(mode);
        let bad = format!("{mode}:120");
        // Only the hang needs a short timeout to end in; the others get one no busy machine
        // can run past, so a slow answer is never mistaken for a hang.
        let timeout = if mode == "hang" { "2" } else { "600" };
        let (ok, text) = label_with(
            &data,
            &good,
            &out,
            &["--timeout", timeout, "--in-flight", "4"],
            &[("FAKE_TEACHER", &bad)],
        );
        assert!(!ok, "{mode}: {text}");
        assert!(text.contains(says), "{mode}: {text}");
        assert!(
            text.contains("train record 1"),
            "{mode}: the position is named: {text}"
        );
        assert!(!text.contains("panicked"), "{mode}: {text}");
        let rows = std::fs::read_to_string(out.join("labels.csv")).unwrap();
        assert_eq!(
            rows.lines().count(),
            3,
            "{mode}: two chunks of 50 kept: {rows}"
        );
        let (ok, text) = label(
            &data,
            &good,
            &out,
            &["--timeout", "600", "--in-flight", "4"],
        );
        assert!(
            ok && text.contains("labelled 277 positions"),
            "{mode}: {text}"
        );
    }
}

/// `eval --truth` on per-move labels: one CSV row per model and x, the teacher's own policy
/// as a model; refused on a dataset without per-move values, and `--model teacher` refused
/// on unlabelled data.
#[test]
fn eval_truth_draws_engine_judged_curves_from_per_move_labels() {
    let Some(teacher) = fake("", 0) else { return };
    let (dir, data, out) = per_move_validation(&teacher, "truth");
    let csv = dir.join("truth.csv");
    let (ok, text) = akushu(&[
        "eval",
        "--data",
        &s(&out),
        "--split",
        "validation",
        "--truth",
        "teacher:0.05",
        "--model",
        "teacher",
        "--model",
        "rules",
        "--truth-csv",
        &s(&csv),
        "--png",
        &s(&dir.join("t.png")),
    ]);
    assert!(ok, "{text}");
    assert!(text.contains("n=63 (skipped 0)"), "{text}");
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 1 + 2 * 81, "{rows}");
    assert!(rows.starts_with("model,truth,x,positions,good_lost,good_pruned,bad_left,paper\n"));
    // The scripted teacher values every move alike: all legal moves are good, so pruning
    // loses one as soon as x passes the stones the pruner rates worst; x = 0 loses none.
    assert!(
        rows.contains("\nteacher,teacher:0.05,0,63,0.0,0.0,0.0,0.0\n"),
        "{rows}"
    );
    // Without per-move values: refused, saying how to get them.
    let plain = dir.join("plain");
    let (ok, text) = label(&data, &teacher, &plain, &["--splits", "validation"]);
    assert!(ok, "{text}");
    let (ok, text) = akushu(&[
        "eval",
        "--data",
        &s(&plain),
        "--split",
        "validation",
        "--truth",
        "teacher",
        "--model",
        "rules",
    ]);
    assert!(!ok && text.contains("dataset label --per-move"), "{text}");
    let (ok, text) = akushu(&[
        "eval",
        "--data",
        &s(&data),
        "--split",
        "validation",
        "--model",
        "teacher",
    ]);
    assert!(!ok && text.contains("no teacher's label"), "{text}");
}

/// `scripts/akushu_dataset.py` reads version 3: every record's label as akushu reads it.
#[test]
fn the_python_reader_reads_the_labels_as_akushu_does() {
    let Some(teacher) = fake("", 0) else { return };
    if !common::python_with_numpy("the_python_reader_reads_the_labels_as_akushu_does") {
        return;
    }
    let (_, _, out) = per_move_validation(&teacher, "python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let code = format!(
        "import sys, json; sys.path.insert(0, {:?}); import akushu_dataset as ad\n\
         d = ad.read_split({:?}, 'validation')\n\
         print(json.dumps([ad.record(d, i) for i in range(len(d['played']))]))",
        s(&script),
        s(&out)
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&common::python(&["-c", &code])).unwrap();
    let split = MappedSplit::open(&out, Split::Validation).unwrap();
    assert_eq!(rows.len(), split.len());
    for (i, row) in rows.iter().enumerate() {
        let p = split.get(i).unwrap();
        let t = p.teacher.as_ref().unwrap();
        let f = |v: &serde_json::Value| v.as_f64().map(|x| x as f32);
        assert_eq!(f(&row["teacher_winrate"]), Some(t.winrate), "{i}");
        assert_eq!(f(&row["teacher_score_lead"]), Some(t.score_lead), "{i}");
        assert_eq!(row["per_move"], true);
        for q in 0..82 {
            assert_eq!(f(&row["teacher_policy"][q]), t.policy_share(q), "{i} {q}");
            assert_eq!(f(&row["move_winrate"][q]), t.move_winrate(q), "{i} {q}");
            assert_eq!(f(&row["move_score_lead"][q]), t.move_score(q), "{i} {q}");
        }
        for q in 0..81 {
            assert_eq!(
                f(&row["teacher_ownership"][q]),
                Some(t.owner_black(q)),
                "{i} {q}"
            );
        }
    }
}

/// A real KataGo as the teacher, where `AKUSHU_KATAGO` gives its analysis command
/// (`katago analysis -model NET -config CFG`; `scripts/build-katago.sh` builds one): its
/// identity is recorded, its policies are distributions over the legal moves, its per-move
/// values put the best move's loss at 0.
#[test]
fn a_real_katago_labels_positions() {
    let Ok(command) = std::env::var("AKUSHU_KATAGO") else {
        eprintln!("skipping a_real_katago_labels_positions: AKUSHU_KATAGO names no KataGo");
        return;
    };
    let dir = scratch("label", "katago");
    let data = dataset(&dir);
    let out = dir.join("lab");
    let (ok, text) = label(
        &data,
        &command,
        &out,
        &["--per-move", "--splits", "validation", "--limit", "8"],
    );
    assert!(ok, "{text}");
    let m = Manifest::load(&out).unwrap();
    let t = m.teacher.unwrap().teacher;
    assert!(!t.version.is_empty() && !t.files.is_empty(), "{t:?}");
    let split = MappedSplit::open(&out, Split::Validation).unwrap();
    for i in 0..split.len() {
        let p = split.get(i).unwrap();
        let l = p.teacher.as_ref().unwrap();
        let total: f32 = (0..82).filter_map(|q| l.policy_share(q)).sum();
        assert!((total - 1.0).abs() < 0.01, "{i}: policy sums to {total}");
        for q in (0..81).filter(|&q| p.cells[q] != 0 || p.ko as usize == q) {
            assert!(l.policy_share(q).is_none(), "{i}: {q} is occupied or ko");
        }
        let losses = l.winrate_losses();
        let best = losses
            .iter()
            .flatten()
            .fold(f32::INFINITY, |a, &b| a.min(b));
        assert_eq!(best, 0.0);
    }
}

/// A chunk file damaged on disk (one byte changed, same length) is refused by name when the
/// dataset is assembled, never copied into it.
#[test]
fn a_damaged_chunk_is_refused_by_name() {
    let dir = scratch("label", "damaged");
    let data = dataset(&dir);
    let teacher = format!(
        "{} analysis --engine uct:sims=4",
        env!("CARGO_BIN_EXE_akushu")
    );
    let out = dir.join("lab");
    let args = ["--visits", "2"];
    let (ok, text) = label_with(
        &data,
        &teacher,
        &out,
        &args,
        &[("AKUSHU_FAILPOINT", "label-chunk:2")],
    );
    assert!(!ok, "{text}");
    let chunk = out.join("chunks/chunk-00001.akr");
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[500] ^= 1;
    std::fs::write(&chunk, &bytes).unwrap();
    let (ok, text) = label(&data, &teacher, &out, &args);
    assert!(
        !ok && text.contains("chunk-00001.akr") && text.contains("damaged"),
        "{text}"
    );
    assert!(!out.join("manifest.json").exists());
}

/// `--plan DIR --shards 2`: the GNU parallel task lines, each run by the shell, then the
/// merge command the plan prints, give the dataset of one run.
#[test]
fn a_plan_runs_its_shards_and_merges_to_one_run() {
    let dir = scratch("label", "plan");
    let data = dataset(&dir);
    let teacher = "akushu analysis --engine uct:sims=4";
    let extra = ["--visits", "2"];
    let one = dir.join("one");
    let (ok, text) = label(&data, teacher, &one, &extra);
    assert!(ok, "{text}");
    let plan = dir.join("plan");
    let shards = dir.join("shards");
    let (ok, text) = label(
        &data,
        teacher,
        &shards,
        &["--visits", "2", "--plan", &s(&plan), "--shards", "2"],
    );
    assert!(ok, "{text}");
    let sbatch = std::fs::read_to_string(plan.join("label.sbatch")).unwrap();
    assert!(sbatch.contains("#SBATCH --array=0-1"), "{sbatch}");
    for line in std::fs::read_to_string(plan.join("parallel-tasks.txt"))
        .unwrap()
        .lines()
    {
        let out = std::process::Command::new("sh")
            .args(["-c", line])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let merge = text
        .lines()
        .find_map(|l| l.split_once("; then ").map(|(_, m)| m.to_string()))
        .unwrap();
    let merged = dir.join("merged");
    let merge = merge
        .replacen("akushu ", &format!("{} ", env!("CARGO_BIN_EXE_akushu")), 1)
        .replace("--out DATA", &format!("--out {}", s(&merged)));
    let out = std::process::Command::new("sh")
        .args(["-c", &merge])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{merge}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for split in Split::ALL {
        assert_eq!(
            split_bytes(&merged, split),
            split_bytes(&one, split),
            "{split:?}"
        );
    }
}

/// With `akushu analysis` over a value network as the teacher at the labeller's default one
/// visit, each position's label is the network's own win rate of that position (for the
/// side to move, its last two moves seen), not one constant for every position.
#[test]
fn a_one_visit_akushu_teacher_labels_the_network_s_value_of_each_position() {
    use akushu::net::NetPruner;
    use akushu::prune::{PruneContext, Pruner, recent_from_last};
    let dir = scratch("label", "network-value");
    let data = dataset(&dir);
    let model = "nnq:models/cnn-distilled-b6c96-6x64-cosine3";
    let teacher = format!(
        "akushu analysis --engine uct:select=puct,policy={model},value={model},value_mix=1,history=true"
    );
    let out = dir.join("labels");
    let (ok, text) = label(&data, &teacher, &out, &["--splits", "validation"]);
    assert!(ok, "{text}");
    let net = NetPruner::load_named(model).unwrap();
    let split = MappedSplit::open(&out, Split::Validation).unwrap();
    assert!(split.len() > 50, "{}", split.len());
    let mut labels = Vec::new();
    for i in 0..split.len() {
        let p = split.get(i).unwrap();
        let l = p.teacher.as_ref().unwrap();
        assert_eq!(l.visits, 1, "position {i}");
        let mut buf = [akushu::rules::Move::Pass; 2];
        let last = [p.last_moves[0], p.last_moves[1]];
        let ctx = PruneContext {
            board: &p.board(),
            to_move: p.color(),
            recent: recent_from_last(last, &mut buf),
        };
        let mut bad = [0f32; 81];
        let want = net.badness_value(&ctx, &mut bad).unwrap();
        assert!(
            (l.winrate - want).abs() <= 2e-5,
            "position {i}: label {} vs the network's {want}",
            l.winrate
        );
        labels.push(l.winrate);
    }
    labels.sort_by(f32::total_cmp);
    labels.dedup();
    assert!(labels.len() > 20, "labels: {labels:?}");
}

/// Training on a labelled dataset whose labelling run left the validation split out is
/// refused with the fix that applies to it (label that split), not the advice for a dataset
/// built from too few games.
#[test]
fn training_on_labels_without_a_validation_split_says_to_label_it() {
    let dir = scratch("label", "no-validation");
    let data = dataset(&dir);
    let out = dir.join("labels");
    let (ok, text) = label(
        &data,
        "akushu analysis --engine uct:sims=4",
        &out,
        &["--visits", "2", "--splits", "train", "--limit", "20"],
    );
    assert!(ok, "{text}");
    let model = dir.join("model");
    let (ok, text) = akushu(&[
        "train",
        "--data",
        &s(&out),
        "--model",
        "mlp",
        "--target",
        "teacher",
        "--epochs",
        "1",
        "--out",
        &s(&model),
        "--quiet",
    ]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("validation split holds no labelled position")
            && text.contains("--splits train,validation"),
        "{text}"
    );
    assert!(!text.contains("dataset build --validation"), "{text}");
}

/// A teacher's shares on points akushu's rules forbid (here a fifth of each policy on a
/// stone; the scripted teacher's shares on ko points and suicides too) are left out and the
/// rest renormalised, and the manifest counts the positions so labelled; training on labels
/// with no share on a point says how many positions fall back to the move played.
#[test]
fn shares_on_forbidden_points_are_renormalised_and_counted() {
    let Some(teacher) = fake("", 0) else { return };
    let dir = scratch("label", "forbidden");
    let data = dataset(&dir);
    let out = dir.join("lab");
    let (ok, text) = label_with(
        &data,
        &teacher,
        &out,
        &["--splits", "validation"],
        &[("FAKE_TEACHER", "stone-share:0")],
    );
    assert!(ok, "{text}");
    let got = MappedSplit::open(&out, Split::Validation).unwrap();
    let mut with_stones = 0;
    for i in 0..got.len() {
        let p = got.get(i).unwrap();
        with_stones += u64::from(p.cells.iter().any(|&c| c != 0));
        let l = p.teacher.as_ref().unwrap();
        let legal = p.legal_points();
        let mut sum = l.policy_share(81).unwrap();
        for (q, &ok) in legal.iter().enumerate() {
            assert_eq!(l.policy_share(q).is_some(), ok, "record {i} point {q}");
            sum += l.policy_share(q).unwrap_or(0.0);
        }
        assert!((sum - 1.0).abs() < 1e-3, "record {i}: shares sum to {sum}");
    }
    let m = Manifest::load(&out).unwrap();
    assert!(with_stones > 0);
    assert_eq!(m.teacher.unwrap().policies_renormalised, with_stones);
    // A teacher that puts everything on pass leaves no point to learn: training on its
    // policy says how many positions train on the move played instead.
    let passes = dir.join("passes");
    let (ok, text) = label_with(
        &data,
        &teacher,
        &passes,
        &["--splits", "train,validation"],
        &[("FAKE_TEACHER", "pass-only:0")],
    );
    assert!(ok, "{text}");
    let model = dir.join("model");
    let (ok, text) = akushu(&[
        "train",
        "--data",
        &s(&passes),
        "--model",
        "cnn",
        "--target",
        "teacher",
        "--epochs",
        "1",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--out",
        &s(&model),
    ]);
    assert!(
        ok && text.contains("target teacher: 314 of 314 training positions have no teacher policy"),
        "{text}"
    );
}

/// `--out` inside the dataset being labelled (or the dataset itself) is refused naming both
/// folders, before anything is written there.
#[test]
fn an_output_inside_the_labelled_dataset_is_refused() {
    let Some(teacher) = fake("", 0) else { return };
    let dir = scratch("label", "inside");
    let data = dataset(&dir);
    for out in [data.join("lab"), data.join("sub/../lab2"), data.clone()] {
        let before: Vec<_> = std::fs::read_dir(&data)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let (ok, text) = label(&data, &teacher, &out, &[]);
        assert!(!ok, "{text}");
        assert!(
            text.contains(&format!(
                "--out {} lies inside the dataset it labels, {}",
                out.display(),
                data.display()
            )),
            "{text}"
        );
        let after: Vec<_> = std::fs::read_dir(&data)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(before, after, "nothing written into the dataset");
    }
}

/// A resume whose teacher is the same command, version and settings but names another
/// network in its `query_models` answer is refused, and the refusal says what differs (the
/// networks), not two identical descriptions of the teacher.
#[test]
fn a_resume_whose_teacher_names_another_network_says_so() {
    let Some(teacher) = fake("", 0) else { return };
    let dir = scratch("label", "models");
    let data = dataset(&dir);
    let out = dir.join("lab");
    let (ok, text) = label_with(&data, &teacher, &out, &[], &[("FAKE_TEACHER", "die:120")]);
    assert!(!ok, "{text}");
    let (ok, text) = label_with(&data, &teacher, &out, &[], &[("FAKE_MODEL", "other-net")]);
    assert!(!ok && text.contains("another labelling run"), "{text}");
    assert!(
        text.contains(r#"its networks (query_models) ["fake-net"] there, ["other-net"] now"#),
        "{text}"
    );
}

/// A teacher whose network is named inside its engine spec (`akushu analysis --engine
/// strong8:policy=nn:DIR`) has that network checksummed: with another network in DIR, a
/// resume is refused naming the file, so the labels of two networks never mix.
#[test]
fn a_network_named_in_the_teachers_engine_spec_is_checksummed() {
    let dir = scratch("label", "spec-net");
    let data = dataset(&dir);
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let net = dir.join("net");
    std::fs::create_dir_all(&net).unwrap();
    for f in ["model.bpk", "model.bpk.checksum", "config.json"] {
        std::fs::copy(models.join("cnn-small").join(f), net.join(f)).unwrap();
    }
    let teacher = format!(
        "akushu analysis --engine strong8:sims=2,policy=nn:{}",
        s(&net)
    );
    let out = dir.join("lab");
    let args = ["--splits", "validation", "--limit", "8"];
    let (ok, text) = label(&data, &teacher, &out, &args);
    assert!(ok, "{text}");
    let m = Manifest::load(&out).unwrap();
    let weights = s(&net.join("model.bpk"));
    assert!(m.teacher.unwrap().teacher.files.contains_key(&weights));
    for f in ["model.bpk", "model.bpk.checksum", "config.json"] {
        std::fs::copy(models.join("cnn-human-5x32").join(f), net.join(f)).unwrap();
    }
    let (ok, text) = label(&data, &teacher, &out, &args);
    assert!(!ok && text.contains("another labelling run"), "{text}");
    assert!(text.contains(&format!("file {weights}:")), "{text}");
}
