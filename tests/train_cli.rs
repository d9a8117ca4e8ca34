//! `akushu train` and `akushu bench train` end to end on synthetic games: a new run never
//! replaces trained weights, `--resume` keeps the saved config (only `--epochs` may grow),
//! a GPU device in a CPU build is a clear error, and the benchmark writes its table.

use std::path::PathBuf;

mod common;
use common::akushu;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-train-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn runs_resume_with_their_own_config_and_never_overwrite_weights() {
    let work = temp("resume");
    let out = work.join("m").display().to_string();
    let base = [
        "train",
        "--synthetic-games",
        "30",
        "--out",
        &out,
        "--quiet",
        "--threads",
        "1",
    ];
    let first = [
        &base[..],
        &["--model", "cnn", "--blocks", "1", "--channels", "8"],
        &["--epochs", "1", "--batch-size", "64", "--lr", "0.002"],
    ]
    .concat();
    let (ok, text) = akushu(&first);
    assert!(ok, "{text}");
    let weights = std::fs::read(work.join("m/model.bpk")).unwrap();

    let (ok, text) = akushu(&first);
    assert!(
        !ok && text.contains("already holds a trained model"),
        "{text}"
    );
    assert_eq!(std::fs::read(work.join("m/model.bpk")).unwrap(), weights);

    // A refused resume names each changed setting with both values, not the whole config.
    let (ok, text) = akushu(&[&base[..], &["--resume", "--lr", "0.5", "--blocks", "2"]].concat());
    assert!(!ok && text.contains("only --epochs may change"), "{text}");
    assert!(
        text.contains("--lr: checkpoint 0.002, now 0.5")
            && text.contains("--blocks: checkpoint 1, now 2"),
        "{text}"
    );
    assert!(!text.contains("\"channels\""), "no config dump:\n{text}");

    let (ok, text) = akushu(&[&base[..], &["--resume", "--epochs", "2"]].concat());
    assert!(ok, "{text}");
    let config = std::fs::read_to_string(work.join("m/config.json")).unwrap();
    assert!(
        config.contains("\"learning_rate\": 0.002") && config.contains("\"channels\": 8"),
        "the first run's overrides survive the resume:\n{config}"
    );
    let log = std::fs::read_to_string(work.join("m/train_log.csv")).unwrap();
    assert_eq!(log.lines().count(), 3, "header + one row per epoch:\n{log}");

    // A shipped model trains further into a new directory, from its own weights.
    let source = std::fs::read(work.join("m/model.bpk")).unwrap();
    // A run that starts from `out`'s weights, in `name`, with this CNN shape.
    let init_from = |name: &str, blocks: &str, channels: &str| {
        akushu(&[
            "train",
            "--synthetic-games",
            "30",
            "--out",
            &work.join(name).display().to_string(),
            "--quiet",
            "--threads",
            "1",
            "--model",
            "cnn",
            "--blocks",
            blocks,
            "--channels",
            channels,
            "--epochs",
            "1",
            "--batch-size",
            "64",
            "--init-from",
            &out,
        ])
    };
    let further = work.join("further").display().to_string();
    let (ok, text) = init_from("further", "1", "8");
    assert!(ok, "{text}");
    let first_loss = |dir: &str| -> f64 {
        let log = std::fs::read_to_string(PathBuf::from(dir).join("train_log.csv")).unwrap();
        let row = log.lines().nth(1).unwrap().to_string();
        row.split(',').nth(4).unwrap().parse().unwrap()
    };
    assert!(
        first_loss(&further) < first_loss(&out),
        "starting from trained weights: {} vs {}",
        first_loss(&further),
        first_loss(&out)
    );
    let saved = std::fs::read_to_string(work.join("further/config.json")).unwrap();
    assert!(saved.contains("\"init_from\""), "{saved}");
    assert_eq!(
        std::fs::read(work.join("m/model.bpk")).unwrap(),
        source,
        "source untouched"
    );
    // A smaller CNN grows into a deeper, wider run with its logits: it starts where the
    // source ended, not where a random network starts.
    let (ok, text) = init_from("grown", "2", "12");
    assert!(ok, "{text}");
    let grown = work.join("grown").display().to_string();
    assert!(
        first_loss(&grown) < first_loss(&out),
        "a grown network starts from the trained one: {} vs {}",
        first_loss(&grown),
        first_loss(&out)
    );
    let (ok, text) = init_from("narrow", "1", "4");
    assert!(!ok && text.contains("smaller"), "{text}");
    let (ok, text) = akushu(&[
        "train",
        "--synthetic-games",
        "30",
        "--out",
        &work.join("bad").display().to_string(),
        "--quiet",
        "--model",
        "mlp",
        "--init-from",
        &out,
    ]);
    assert!(!ok && text.contains("another network shape"), "{text}");

    let (ok, text) = akushu(&[&base[..], &["--resume", "--device", "gpu"]].concat());
    if cfg!(not(feature = "vulkan")) {
        assert!(!ok && text.contains("--features gpu"), "{text}");
    }
    let (ok, text) = akushu(&[&base[..], &["--resume", "--device", "cuda:x"]].concat());
    assert!(!ok && text.contains("bad device index"), "{text}");
    std::fs::remove_dir_all(work).unwrap();
}

#[test]
fn bench_train_writes_throughput_next_to_the_fma_peak() {
    let work = temp("bench");
    let csv = work.join("bench.csv");
    let (ok, text) = akushu(&[
        "bench",
        "train",
        "--model",
        "mlp",
        "--hidden",
        "16",
        "--steps",
        "2",
        "--batch-size",
        "32",
        "--threads",
        "1",
        "--peak-seconds",
        "0.05",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let mut rd = csv::Reader::from_path(&csv).unwrap();
    let headers = rd.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 1);
    let field = |name: &str| -> f64 {
        let i = headers.iter().position(|h| h == name).unwrap();
        rows[0][i].parse().unwrap()
    };
    assert!(field("examples_per_s") > 0.0);
    assert!(field("fma_peak_gflops") > field("gflops"), "{text}");
    // 81 -> 16 -> 81: 2 * (81*16 + 16*81) FLOPs forward, three times that to train.
    assert!((field("mflop_per_example") - 6.0 * 2.0 * 81.0 * 16.0 * 1e-6).abs() < 1e-9);
    std::fs::remove_dir_all(work).unwrap();
}

/// A config file may leave out fields, `model` included, when `--model` names the network;
/// without either the error names the missing field.
#[test]
fn a_partial_config_file_takes_the_model_from_the_command_line() {
    let dir = temp("partial-config");
    let cfg = dir.join("my.toml");
    std::fs::write(&cfg, "epochs = 1\nbatch_size = 64\n").unwrap();
    let out = dir.join("m");
    let (cfg_s, out_s) = (cfg.display().to_string(), out.display().to_string());
    let (ok, text) = akushu(&[
        "train",
        "--config",
        &cfg_s,
        "--model",
        "mlp",
        "--synthetic-games",
        "6",
        "--out",
        &out_s,
    ]);
    assert!(ok, "{text}");
    let saved = std::fs::read_to_string(out.join("config.json")).unwrap();
    assert!(
        saved.contains("\"model\": \"mlp\"") && saved.contains("\"batch_size\": 64"),
        "{saved}"
    );
    let (ok, text) = akushu(&[
        "train",
        "--config",
        &cfg_s,
        "--synthetic-games",
        "6",
        "--out",
        &dir.join("n").display().to_string(),
    ]);
    assert!(!ok && text.contains("field `model` is missing"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// `akushu` with `AKUSHU_FAILPOINT` set (the process kills itself there, as `kill -9`).
fn akushu_failing(args: &[&str], failpoint: &str) -> (bool, String) {
    common::akushu_with(args, &[("AKUSHU_FAILPOINT", failpoint)])
}

/// The log's rows without the timing columns (seconds, examples/s, CPU per wall).
fn log_values(dir: &std::path::Path) -> Vec<String> {
    // Every column but the timings, chosen by name (columns are added over time).
    const TIMINGS: [&str; 3] = ["seconds", "examples_per_second", "cpu_per_wall"];
    let text = std::fs::read_to_string(dir.join("train_log.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap_or("").split(',').collect();
    text.lines()
        .map(|l| {
            l.split(',')
                .zip(&header)
                .filter(|(_, h)| !TIMINGS.contains(h))
                .map(|(c, _)| c)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// A new one-thread MLP run on 40 synthetic games into `out`: two epochs of `batch`, then
/// `extra` flags.
fn mlp_run(out: &str, batch: &str, extra: &[&str]) -> Vec<String> {
    let base = [
        "train",
        "--synthetic-games",
        "40",
        "--model",
        "mlp",
        "--epochs",
        "2",
        "--batch-size",
        batch,
        "--threads",
        "1",
        "--quiet",
        "--out",
        out,
    ];
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// `--resume` of an [`mlp_run`] in `out`.
fn mlp_resume(out: &str) -> Vec<String> {
    let flags = [
        "train",
        "--synthetic-games",
        "40",
        "--out",
        out,
        "--resume",
        "--threads",
        "1",
        "--quiet",
    ];
    flags.iter().map(|s| s.to_string()).collect()
}

/// A run killed at either step of a checkpoint commit (its files written and synced; the new
/// checkpoint swapped in) resumes to the uninterrupted run's result, validation for
/// validation; a second writer into a model directory is refused while the first holds it.
#[test]
fn a_run_killed_inside_a_checkpoint_resumes_to_the_same_result() {
    let work = temp("killed");
    let run = |out: &str| mlp_run(out, "64", &["--validate-every", "10"]);
    let whole = work.join("whole").display().to_string();
    let (ok, text) = akushu(&args(&run(&whole)));
    assert!(ok, "{text}");
    let want = log_values(&work.join("whole"));
    assert!(want.len() > 4, "{want:?}");
    for point in ["checkpoint-synced:3", "checkpoint-swapped:3"] {
        let out = work.join(point.replace(':', "-"));
        let name = out.display().to_string();
        let (ok, text) = akushu_failing(&args(&run(&name)), point);
        assert!(!ok && text.contains("killed"), "{point}: {text}");
        // The checkpoint is whole: its weights match their checksum and the state reads.
        let state = std::fs::read_to_string(out.join("checkpoint/state.json")).unwrap();
        assert!(state.contains("\"step\""), "{state}");
        let (ok, text) = akushu(&args(&mlp_resume(&name)));
        assert!(ok, "{point}: {text}");
        assert_eq!(log_values(&out), want, "{point}");
        // Nothing is left beside the checkpoint or the model directory.
        let leftovers: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .chain(std::fs::read_dir(&work).unwrap())
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-") || n.contains(".old-") || n.ends_with(".lock"))
            .collect();
        assert!(leftovers.is_empty(), "{point}: {leftovers:?}");
    }
    // A live process's lock (this test's) refuses a second writer, and names it.
    std::fs::write(
        work.join("locked.lock"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let locked = work.join("locked").display().to_string();
    let (ok, text) = akushu(&args(&run(&locked)));
    assert!(
        !ok && text.contains("being written by another akushu"),
        "{text}"
    );
    assert!(!work.join("locked").exists());
    std::fs::remove_dir_all(work).unwrap();
}

/// The `step` a run's checkpoint holds.
fn checkpoint_step(dir: &std::path::Path) -> u64 {
    let text = std::fs::read_to_string(dir.join("checkpoint/state.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    state["step"].as_u64().unwrap()
}

/// `--stop-after-minutes` pauses mid-epoch, between validations, with a checkpoint there; a
/// run killed after that checkpoint resumes from it, and the run ends with the
/// uninterrupted run's log and weights. A run killed before any checkpoint says so when
/// resumed, instead of starting over silently.
#[test]
fn a_paused_or_killed_run_resumes_mid_epoch_from_its_checkpoint() {
    let work = temp("midepoch");
    // Two epochs of about 100 steps, validated at their ends only.
    let base = |out: &str| mlp_run(out, "16", &[]);
    let resume = mlp_resume;
    let whole = work.join("whole");
    let (ok, text) = akushu(&args(&base(&whole.display().to_string())));
    assert!(ok, "{text}");
    let total = checkpoint_step(&whole);
    let want = log_values(&whole);
    assert_eq!(
        want.len(),
        3,
        "a header and one validation per epoch: {want:?}"
    );

    // Paused after a few milliseconds: mid-epoch, before the first validation. The log's
    // validation losses (full precision) then show the resumed weights are the same.
    let paused = work.join("paused");
    let name = paused.display().to_string();
    let first = mlp_run(&name, "16", &["--stop-after-minutes", "0.0001"]);
    let (ok, text) = akushu(&args(&first));
    assert!(ok && text.contains("paused"), "{text}");
    let at = checkpoint_step(&paused);
    assert!(0 < at && at < total / 2, "paused at step {at} of {total}");
    // Killed two steps after that checkpoint: the resume starts from it.
    let (ok, text) = akushu_failing(&args(&resume(&name)), "train-step:2");
    assert!(!ok && text.contains("killed"), "{text}");
    assert_eq!(
        checkpoint_step(&paused),
        at,
        "no checkpoint since the pause"
    );
    // A killed writer's temporary checksum file, of a process gone: the resume removes it.
    let stale = paused.join("model.bpk.checksum.tmp-99999999");
    std::fs::write(&stale, "fnv1a64:0 0\n").unwrap();
    let (ok, text) = akushu(&args(&resume(&name)));
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!("resuming after step {at}")),
        "{text}"
    );
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert_eq!(log_values(&paused), want);

    // Killed before its first checkpoint: the resume says there is none.
    let early = work.join("early");
    let name = early.display().to_string();
    let (ok, text) = akushu_failing(&args(&base(&name)), "train-step:3");
    assert!(!ok && text.contains("killed"), "{text}");
    let (ok, text) = akushu(&args(&resume(&name)));
    assert!(ok && text.contains("no checkpoint"), "{text}");
    assert_eq!(log_values(&early), want);
    std::fs::remove_dir_all(work).unwrap();
}

/// `--heads-only` without `--init-from` would train heads on a frozen random tower: it is
/// refused before anything is written.
#[test]
fn heads_only_without_a_start_network_is_refused() {
    let work = temp("heads-only");
    let out = work.join("m").display().to_string();
    let (ok, text) = akushu(&[
        "train",
        "--synthetic-games",
        "10",
        "--model",
        "cnn",
        "--value-channels",
        "8",
        "--heads-only",
        "true",
        "--quiet",
        "--out",
        &out,
    ]);
    assert!(!ok && text.contains("--init-from"), "{text}");
    assert!(!work.join("m/model.bpk").exists());
    std::fs::remove_dir_all(work).unwrap();
}
