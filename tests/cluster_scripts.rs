//! The scripts of `akushu experiment plan --slurm --parallel` run for real: a small
//! experiment (two arms of 8 games, tiny engines) played as 4 shards per arm by GNU parallel
//! and, on a one-node Slurm cluster started from `scripts/slurm-local.sh`, as array jobs with
//! a dependent merge job. Each merged arm folder must equal the one-machine run of the same
//! seed game for game: same CSV rows (timing aside), byte-identical SGF files, same summary
//! (timing aside). A lost or cancelled shard must be reported by the merge as missing games
//! of that shard, and playing only that shard again must complete the run.
//!
//! Without GNU parallel or Slurm (or without root, which the local cluster's daemons need)
//! a test prints why and skips; with `AKUSHU_REQUIRE_CLUSTER` set (`.ci/run` installs both)
//! a skip is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use akushu::arena::GameRecord;
use akushu::arena::record::read_csv;

mod common;

/// Two arms, 8 games each with alternating colours: enough for 4 shards of 2 games.
const EXPERIMENT: &str = r#"
name = "tiny"
title = "Cluster scripts test"
[match]
games = 8
seed = 20261126
alternate = true
max_moves = 120
[players]
black = "uct:sims={sims},expand=2"
white = "random"
[sweep]
var = "sims"
values = [8, 16]
"#;
const ARMS: [&str; 2] = ["sims=8", "sims=16"];
const SHARDS: u32 = 4;

/// A fresh folder per call.
fn temp_dir(name: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("akushu-cluster-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// True when every tool is on the PATH; otherwise prints why the test skips, or fails
/// when `AKUSHU_REQUIRE_CLUSTER` is set.
fn tools_present(test: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {t}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    skip_or_fail(test, &format!("{} not installed", missing.join(", ")));
    false
}

/// True when this runs as root, which the local cluster's daemons need; otherwise says why
/// the test skips (or fails, when the cluster is required).
fn running_as_root(test: &str) -> bool {
    let root = run(Path::new("."), None, "id", &["-u"])
        .stdout
        .starts_with(b"0\n");
    if !root {
        skip_or_fail(
            test,
            "the local cluster's daemons run as root, and this is not root",
        );
    }
    root
}

fn skip_or_fail(test: &str, why: &str) {
    common::skip_or_fail("CLUSTER", test, why, "sh scripts/slurm-local.sh install");
}

/// Runs a command in `dir`, with `SLURM_CONF` when given; returns its output whatever the
/// exit status.
fn run(dir: &Path, slurm_conf: Option<&Path>, program: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir);
    if let Some(conf) = slurm_conf {
        cmd.env("SLURM_CONF", conf);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("starting {program}: {e}"))
}

/// Like [`run`], but the command must succeed; returns its standard output.
fn run_ok(dir: &Path, slurm_conf: Option<&Path>, program: &str, args: &[&str]) -> String {
    let out = run(dir, slurm_conf, program, args);
    assert!(
        out.status.success(),
        "{program} {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The experiment file, and its arms played on one machine into `<dir>/one`.
fn experiment_and_one_machine_run(dir: &Path) -> (PathBuf, PathBuf) {
    let file = dir.join("tiny.toml");
    std::fs::write(&file, EXPERIMENT).unwrap();
    let one = dir.join("one");
    let akushu = env!("CARGO_BIN_EXE_akushu");
    run_ok(
        dir,
        None,
        akushu,
        &[
            "experiment",
            "run",
            "tiny.toml",
            "--out",
            "one",
            "--jobs",
            "1",
            "--quiet",
        ],
    );
    (file, one.join("tiny"))
}

/// `akushu experiment plan` with `flag` (`--slurm` or `--parallel`), 4 shards, results
/// in `<dir>/runs`; returns the scripts folder.
fn plan(dir: &Path, flag: &str) -> PathBuf {
    let akushu = env!("CARGO_BIN_EXE_akushu");
    let shards = SHARDS.to_string();
    let args = [
        "experiment",
        "plan",
        "tiny.toml",
        "--out",
        "runs",
        flag,
        "--shards",
        &shards,
        "--time",
        "0:10:00",
    ];
    let printed = run_ok(dir, None, akushu, &args);
    let scripts = dir.join("runs/tiny/cluster");
    assert!(printed.contains(&format!("written: {}", scripts.join("merge.sh").display())));
    scripts
}

/// A summary without its timing (the seconds-per-move column, the CPU and overhead lines).
fn summary_without_timing(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with("arena overhead") && !l.starts_with("CPU seconds per move"))
        // A plan history line starts with the time the plan was made (`- 2026-12-02T06:06:03Z:
        // planned ...`): the plan itself is compared, not when each run wrote it.
        .map(
            |l| match l.strip_prefix("- ").and_then(|r| r.split_once("Z: ")) {
                Some((stamp, plan)) if stamp.len() == 19 && stamp.as_bytes()[10] == b'T' => {
                    format!("- {plan}")
                }
                _ => l.to_string(),
            },
        )
        .map(|l| {
            let mut cells: Vec<&str> = l.split(" | ").collect();
            if l.starts_with("| ") && cells.len() >= 10 {
                cells.remove(8); // s/move
            }
            cells.join(" | ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rows_without_timing(dir: &Path) -> Vec<GameRecord> {
    read_csv(&dir.join("games.csv"))
        .unwrap()
        .iter()
        .map(GameRecord::without_timing)
        .collect()
}

/// The SGF files of a folder by name, with their bytes.
fn sgfs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("sgf"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Every arm merged under `runs` equals the one-machine run, game for game.
fn assert_merged_equal_one_machine(one: &Path, runs: &Path) {
    for arm in ARMS {
        let (a, b) = (one.join(arm), runs.join("tiny").join(arm));
        let rows = rows_without_timing(&b);
        assert_eq!(rows.len(), 8, "{}: all games merged", b.display());
        assert_eq!(rows, rows_without_timing(&a), "{arm}: rows differ");
        let merged_sgfs = sgfs(&b);
        assert_eq!(merged_sgfs.len(), 8);
        assert!(merged_sgfs == sgfs(&a), "{arm}: SGF files differ");
        assert_eq!(
            summary_without_timing(&b),
            summary_without_timing(&a),
            "{arm}: summaries differ"
        );
    }
    assert!(
        runs.join("tiny/report.md").exists(),
        "merge step wrote the report"
    );
}

/// Runs the merge step, which must fail and name 2 of an arm's 8 games as missing, with
/// the shard that owns them (`shard_games`: "shard 1/4: games 2, 6").
fn assert_merge_names_missing(
    dir: &Path,
    slurm_conf: Option<&Path>,
    scripts: &Path,
    shard_games: &str,
) {
    let merge_sh = scripts.join("merge.sh");
    let merge = run(dir, slurm_conf, "sh", &[merge_sh.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&merge.stderr);
    assert!(
        !merge.status.success(),
        "merge must fail with games missing"
    );
    assert!(
        said.contains("2 of 8 games are missing") && said.contains(shard_games),
        "{said}"
    );
}

#[test]
#[ignore = "needs Slurm and GNU parallel (sh scripts/slurm-local.sh install): cargo test --release -- --ignored"]
fn gnu_parallel_shards_equal_one_machine_and_a_lost_shard_is_replayed() {
    if !tools_present("the GNU parallel test", &["parallel"]) {
        return;
    }
    let start = Instant::now();
    let dir = temp_dir("parallel");
    let (_, one) = experiment_and_one_machine_run(&dir);
    let scripts = plan(&dir, "--parallel");
    let tasks = std::fs::read_to_string(scripts.join("parallel-tasks.txt")).unwrap();
    assert_eq!(tasks.lines().count(), ARMS.len() * SHARDS as usize);
    run_ok(
        &dir,
        None,
        "sh",
        &[scripts.join("parallel.sh").to_str().unwrap()],
    );
    let runs = dir.join("runs");
    assert_merged_equal_one_machine(&one, &runs);

    // Lose shard 2 of the second arm: the merge fails, naming that shard's games.
    std::fs::remove_dir_all(runs.join("tiny/sims=16.shards/2")).unwrap();
    assert_merge_names_missing(&dir, None, &scripts, "shard 2/4: games 3, 7");
    assert_eq!(rows_without_timing(&runs.join("tiny/sims=16")).len(), 6);

    // Only that shard again (its line of the task list), then the merge completes.
    let line = tasks
        .lines()
        .find(|l| l.contains("--shard 2/4") && l.contains("sims=16.shards"))
        .unwrap();
    run_ok(&dir, None, "sh", &["-c", line]);
    run_ok(
        &dir,
        None,
        "sh",
        &[scripts.join("merge.sh").to_str().unwrap()],
    );
    assert_merged_equal_one_machine(&one, &runs);
    eprintln!("GNU parallel test: {:.1} s", start.elapsed().as_secs_f64());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The local cluster of `scripts/slurm-local.sh`, stopped when dropped (also on a panic).
struct LocalSlurm {
    dir: PathBuf,
}

impl LocalSlurm {
    /// Starts the cluster in `dir`, or says why it cannot (the script names the daemon).
    fn start(dir: &Path) -> Result<LocalSlurm, String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-local.sh");
        let out = run(
            dir,
            None,
            "sh",
            &[script.to_str().unwrap(), "start", "slurm"],
        );
        let cluster = LocalSlurm {
            dir: dir.join("slurm"),
        };
        if out.status.success() {
            eprint!("{}", String::from_utf8_lossy(&out.stdout));
            Ok(cluster)
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }
}

impl Drop for LocalSlurm {
    fn drop(&mut self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-local.sh");
        let _ = Command::new("sh")
            .arg(script)
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

/// Waits until none of `jobs` is pending or running.
fn wait_for_jobs(dir: &Path, conf: &Path, jobs: &[&str]) {
    let list = jobs.join(",");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let queued = run_ok(
            dir,
            Some(conf),
            "squeue",
            &["-h", "-j", &list, "-o", "%i %T"],
        );
        if queued.trim().is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "jobs still queued after 180 s:\n{queued}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// `submitted <what> <id>` lines of `submit-slurm.sh`, as `(what, id)`.
fn submitted(printed: &str) -> Vec<(String, String)> {
    printed
        .lines()
        .filter_map(|l| l.strip_prefix("submitted "))
        .map(|l| {
            let (what, id) = l.rsplit_once(' ').unwrap();
            (what.to_string(), id.to_string())
        })
        .collect()
}

#[test]
#[ignore = "needs Slurm and GNU parallel (sh scripts/slurm-local.sh install): cargo test --release -- --ignored"]
fn slurm_array_jobs_equal_one_machine_and_a_cancelled_shard_is_resubmitted() {
    let test = "the Slurm test";
    if !tools_present(
        test,
        &[
            "sbatch",
            "squeue",
            "scancel",
            "scontrol",
            "sinfo",
            "slurmctld",
            "slurmd",
            "munged",
        ],
    ) {
        return;
    }
    if !running_as_root(test) {
        return;
    }
    let start = Instant::now();
    let dir = temp_dir("slurm");
    let cluster = match LocalSlurm::start(&dir) {
        Ok(c) => c,
        Err(why) => {
            skip_or_fail(test, &format!("the local cluster did not start: {why}"));
            return;
        }
    };
    let conf = cluster.conf();
    let (_, one) = experiment_and_one_machine_run(&dir);
    let scripts = plan(&dir, "--slurm");
    let runs = dir.join("runs");

    // Submit held, cancel task 1 of the second arm's array before anything runs, release.
    let submit = scripts.join("submit-slurm.sh");
    let printed = run_ok(
        &dir,
        Some(&conf),
        "sh",
        &[submit.to_str().unwrap(), "--hold"],
    );
    let jobs = submitted(&printed);
    let names: Vec<&str> = jobs.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(
        names,
        ["shards sims=8", "shards sims=16", "merge"],
        "{printed}"
    );
    let ids: Vec<&str> = jobs.iter().map(|(_, id)| id.as_str()).collect();
    let cancelled = format!("{}_1", ids[1]);
    run_ok(&dir, Some(&conf), "scancel", &[&cancelled]);
    let mut release = vec!["release"];
    release.extend(&ids);
    run_ok(&dir, Some(&conf), "scontrol", &release);
    wait_for_jobs(&dir, &conf, &ids);

    // The merge job depended on every task succeeding: Slurm cancelled it unrun.
    let merge_job = run_ok(&dir, Some(&conf), "scontrol", &["show", "job", ids[2]]);
    assert!(
        merge_job.contains("JobState=CANCELLED") && merge_job.contains("DependencyNeverSatisfied"),
        "{merge_job}"
    );
    assert!(
        !runs.join("tiny/sims=8").exists(),
        "the merge job must not have run"
    );
    for i in [0, 2, 3] {
        assert!(
            runs.join(format!("tiny/sims=16.shards/{i}/games.csv"))
                .exists()
        );
    }
    assert!(!runs.join("tiny/sims=16.shards/1").exists());

    // Merging by hand reports the cancelled shard's games.
    assert_merge_names_missing(&dir, Some(&conf), &scripts, "shard 1/4: games 2, 6");

    // Resubmit only that shard, with the merge job after it.
    let array = scripts.join("shards-sims=16.sbatch");
    let again = run_ok(
        &dir,
        Some(&conf),
        "sbatch",
        &["--parsable", "--array=1", array.to_str().unwrap()],
    );
    let again = again.trim().split(';').next().unwrap().to_string();
    let dependency = format!("--dependency=afterok:{again}");
    let merge_script = scripts.join("merge.sh");
    let merge_id = run_ok(
        &dir,
        Some(&conf),
        "sbatch",
        &["--parsable", &dependency, merge_script.to_str().unwrap()],
    );
    let merge_id = merge_id.trim().split(';').next().unwrap().to_string();
    wait_for_jobs(&dir, &conf, &[&again, &merge_id]);
    let merge_job = run_ok(&dir, Some(&conf), "scontrol", &["show", "job", &merge_id]);
    assert!(merge_job.contains("JobState=COMPLETED"), "{merge_job}");
    assert_merged_equal_one_machine(&one, &runs);
    drop(cluster);
    eprintln!(
        "Slurm test (cluster start and stop included): {:.1} s",
        start.elapsed().as_secs_f64()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `akushu selfplay` options shared by the one-machine run and the plan.
const SELFPLAY: &[&str] = &[
    "selfplay",
    "--engine",
    "uct:sims=16,expand=2",
    "--games",
    "6",
    "--seed",
    "5",
    "--random-moves",
    "2",
    "--max-moves",
    "120",
    "--quiet",
];

/// Self-play rows (timing aside) and records of `dirs` together, in game order.
fn selfplay_games(dirs: &[PathBuf]) -> Vec<(akushu::arena::selfplay::SelfplayRow, Vec<u8>)> {
    use akushu::arena::selfplay_run::SelfplayDir;
    let mut all = Vec::new();
    for dir in dirs {
        let sp = SelfplayDir::new(dir);
        for row in sp.read_rows().unwrap() {
            let records = sp.read_records(&row).unwrap();
            all.push((row.without_timing(), records));
        }
    }
    all.sort_by_key(|(r, _)| r.game);
    all
}

#[test]
#[ignore = "needs Slurm and GNU parallel (sh scripts/slurm-local.sh install): cargo test --release -- --ignored"]
fn selfplay_shards_on_slurm_and_gnu_parallel_equal_one_machine() {
    let test = "the self-play cluster test";
    if !tools_present(
        test,
        &[
            "parallel",
            "sbatch",
            "squeue",
            "slurmctld",
            "slurmd",
            "munged",
        ],
    ) {
        return;
    }
    if !running_as_root(test) {
        return;
    }
    let dir = temp_dir("selfplay");
    let akushu = env!("CARGO_BIN_EXE_akushu");
    let mut one_args = SELFPLAY.to_vec();
    one_args.extend(["--jobs", "1", "--out", "one"]);
    run_ok(&dir, None, akushu, &one_args);
    let one = selfplay_games(&[dir.join("one")]);
    assert_eq!(one.len(), 6);
    let shard_dirs = |out: &str| -> Vec<PathBuf> {
        (0..3)
            .map(|i| dir.join(out).join(format!("shard-{i}")))
            .collect()
    };

    // GNU parallel.
    let mut plan_args = SELFPLAY.to_vec();
    plan_args.extend(["--out", "par", "--plan", "par-jobs", "--shards", "3"]);
    run_ok(&dir, None, akushu, &plan_args);
    run_ok(
        &dir,
        None,
        "sh",
        &[dir.join("par-jobs/parallel.sh").to_str().unwrap()],
    );
    assert_eq!(selfplay_games(&shard_dirs("par")), one);

    // Slurm: the array job's three tasks.
    let cluster = match LocalSlurm::start(&dir) {
        Ok(c) => c,
        Err(why) => {
            skip_or_fail(test, &format!("the local cluster did not start: {why}"));
            return;
        }
    };
    let conf = cluster.conf();
    let mut plan_args = SELFPLAY.to_vec();
    plan_args.extend(["--out", "slurm", "--plan", "slurm-jobs", "--shards", "3"]);
    run_ok(&dir, None, akushu, &plan_args);
    let sbatch = dir.join("slurm-jobs/selfplay.sbatch");
    let id = run_ok(
        &dir,
        Some(&conf),
        "sbatch",
        &["--parsable", sbatch.to_str().unwrap()],
    );
    let id = id.trim().split(';').next().unwrap().to_string();
    wait_for_jobs(&dir, &conf, &[&id]);
    assert_eq!(selfplay_games(&shard_dirs("slurm")), one);
    drop(cluster);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `experiment plan --scripts DIR` replaces only the files an earlier plan wrote: a file of
/// the user's, a symbolic link or a FIFO where a script goes refuses the whole plan, and
/// nothing is written or replaced.
#[cfg(unix)]
#[test]
fn a_plan_never_replaces_files_it_did_not_write() {
    let dir = std::env::temp_dir().join(format!("akushu-plan-own-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let experiment =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/tree_pruning.toml");
    let plan = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
            .args(["experiment", "plan"])
            .arg(&experiment)
            .args(["--parallel", "--shards", "2", "--scripts"])
            .arg(&dir)
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap()
    };
    assert!(plan().status.success());
    // A second plan replaces its own files.
    assert!(plan().status.success());
    let script = dir.join("parallel.sh");
    for (what, make) in [
        ("a file of the user's", "echo keep > \"$1\""),
        (
            "a symbolic link",
            "echo keep > \"$1.notes\" && ln -s \"$1.notes\" \"$1\"",
        ),
        ("a FIFO", "mkfifo \"$1\""),
    ] {
        let _ = std::fs::remove_file(&script);
        let made = std::process::Command::new("sh")
            .args(["-c", make, "sh"])
            .arg(&script)
            .status()
            .unwrap();
        assert!(made.success());
        let before = std::fs::symlink_metadata(&script).unwrap().file_type();
        let out = plan();
        assert!(!out.status.success(), "{what} was replaced");
        assert_eq!(
            std::fs::symlink_metadata(&script).unwrap().file_type(),
            before,
            "{what}"
        );
        if !std::os::unix::fs::FileTypeExt::is_fifo(&before) {
            assert_eq!(
                std::fs::read_to_string(&script).unwrap(),
                "keep\n",
                "{what}"
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
