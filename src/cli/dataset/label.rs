//! `akushu dataset label`: a dataset's positions labelled by a teacher engine.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use crate::dataset::{Split, TeacherInfo};
use crate::runs::folder::Shard;
use crate::teacher::client::Teacher;
use crate::teacher::label::{
    CHUNK, LabelConfig, LabelOptions, Source, command_files, labelled_count, run_label, spans,
};

#[derive(Debug, Clone, Args)]
pub struct LabelArgs {
    /// The dataset to label (any format version; its splits are kept as they are).
    #[arg(value_name = "DATA")]
    pub data: PathBuf,
    /// The teacher: a command speaking KataGo's JSON analysis protocol on stdin/stdout,
    /// run through `sh -c` (`katago analysis -model NET -config CFG`, `akushu analysis`; a
    /// leading `akushu` is this program).
    #[arg(long, value_name = "CMD")]
    pub teacher: String,
    /// The labelling folder, which becomes the labelled dataset (format version 3) when
    /// every chunk is labelled; a killed run resumes from it.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Splits to label, in order (the others are written empty).
    #[arg(long, value_delimiter = ',', default_value = "train,validation,test")]
    pub splits: Vec<super::SplitArg>,
    /// Label at most this many positions of each split, from its start (0 = all).
    #[arg(long, default_value_t = 0)]
    pub limit: u64,
    /// A limit for one split that replaces --limit for it, `SPLIT=N` (repeatable), e.g.
    /// `--split-limit validation=4096` beside a large --limit of the training split.
    #[arg(long, value_name = "SPLIT=N", value_parser = split_limit_arg)]
    pub split_limit: Vec<(String, u64)>,
    /// Label every k-th record of each split (records 0, k, 2k, ...): positions spread
    /// over more games for the same cost.
    #[arg(long, default_value_t = 1)]
    pub every: u32,
    /// Visits the teacher searches per position (1 = its raw network).
    #[arg(long, default_value_t = 1)]
    pub visits: u32,
    /// Also ask every legal move's own value (one query per legal move: about 1 + 50
    /// queries a position in the middle game), so each move's loss against the best is known.
    #[arg(long)]
    pub per_move: bool,
    /// The rules of every query (area scoring: `chinese`, `tromp-taylor`, ...).
    #[arg(long, default_value = "chinese")]
    pub rules: String,
    /// The komi of every query, or `game` for each game's own (6.5 where it has none).
    #[arg(long, default_value = "6.5")]
    pub komi: String,
    /// Queries in flight at once (KataGo batches across them: give at least its
    /// numAnalysisThreads).
    #[arg(long, default_value_t = 64)]
    pub in_flight: usize,
    /// Seconds to wait for any answer before the teacher is called stalled.
    #[arg(long, default_value_t = 300.0)]
    pub timeout: f64,
    /// Label only the chunks of shard i/n (the chunks c with (c - 1) % n == i);
    /// a shard's folder holds labels, not a dataset: merge with --from.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Take the labelled chunks of these folders of the same run (its shards) first.
    #[arg(long, num_args = 1.., value_name = "DIR")]
    pub from: Vec<PathBuf>,
    /// Positions per chunk: the unit of the checkpoint (a killed run loses at most the
    /// chunks in flight) and of --shard.
    #[arg(long, default_value_t = CHUNK)]
    pub chunk: u32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Write cluster scripts instead of labelling: a Slurm array job (`label.sbatch`, task
    /// i labels shard i/n into OUT/shard-i) and GNU parallel's tasks (`parallel.sh`); then
    /// `--from OUT/shard-*` takes the shards together.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["shard", "from"])]
    pub plan: Option<PathBuf>,
    #[command(flatten)]
    pub cluster: super::super::selfplay::PlanArgs,
}

impl LabelArgs {
    /// The options that make one run (all but the folder, the shard and `--from`), as
    /// arguments after `akushu`.
    fn run_args(&self) -> Vec<String> {
        let splits: Vec<&str> = self.splits.iter().map(|&s| Split::from(s).name()).collect();
        let mut v: Vec<String> = vec![
            "dataset".into(),
            "label".into(),
            self.data.display().to_string(),
            "--teacher".into(),
            self.teacher.clone(),
            "--splits".into(),
            splits.join(","),
        ];
        for (flag, value) in [
            ("--limit", self.limit.to_string()),
            ("--every", self.every.to_string()),
            ("--visits", self.visits.to_string()),
            ("--rules", self.rules.clone()),
            ("--komi", self.komi.clone()),
            ("--in-flight", self.in_flight.to_string()),
            ("--timeout", self.timeout.to_string()),
            ("--chunk", self.chunk.to_string()),
        ] {
            v.extend([flag.to_string(), value]);
        }
        for (split, n) in &self.split_limit {
            v.extend(["--split-limit".to_string(), format!("{split}={n}")]);
        }
        if self.per_move {
            v.push("--per-move".into());
        }
        v
    }
}

/// Runs `dataset label`.
pub fn run(a: &LabelArgs) -> Result<()> {
    if a.visits == 0 {
        bail!("--visits must be at least 1");
    }
    if a.every == 0 || a.chunk == 0 {
        bail!("--every and --chunk must be at least 1");
    }
    if a.komi != "game"
        && !a
            .komi
            .parse::<f32>()
            .is_ok_and(|k| k.abs() <= crate::teacher::label::TEACHER_MAX_KOMI)
    {
        bail!(
            "--komi {:?}: expected `game` or a number from -{max} to {max} (the teacher's range)",
            a.komi,
            max = crate::teacher::label::TEACHER_MAX_KOMI
        );
    }
    if !(a.timeout.is_finite() && a.timeout > 0.0) {
        bail!("--timeout must be a positive number of seconds");
    }
    let splits: Vec<Split> = a.splits.iter().map(|&s| s.into()).collect();
    let mut seen = std::collections::HashSet::new();
    if let Some(s) = splits.iter().find(|s| !seen.insert(**s)) {
        bail!("--splits names {} twice", s.name());
    }
    if a.from.iter().any(|f| same_dir(f, &a.out)) {
        bail!("--from names --out itself");
    }
    // Its chunks and split files would sit among the files being read, and the labelled
    // dataset would be the source's own subfolder.
    if within(&a.out, &a.data) {
        bail!(
            "--out {} lies inside the dataset it labels, {}: write the labelled dataset to a \
             folder of its own",
            a.out.display(),
            a.data.display()
        );
    }
    let split_limits: std::collections::BTreeMap<String, u64> =
        a.split_limit.iter().cloned().collect();
    let sizes: Vec<(Split, u64)> = splits
        .iter()
        .map(|&s| {
            let n = crate::dataset::format::read_header(&a.data, s).map(|h| h.count);
            n.map(|n| {
                (
                    s,
                    labelled_count(
                        n,
                        a.every,
                        split_limits.get(s.name()).copied().unwrap_or(a.limit),
                    ),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let chunks = spans(&sizes, a.chunk).len() as u32;
    if chunks == 0 {
        bail!(
            "{}: the splits {} hold no position: nothing to label",
            a.data.display(),
            a.splits.len()
        );
    }
    if let Some(dir) = &a.plan {
        return write_plan(a, dir, chunks);
    }
    let _lock = crate::dataset::build::lock_output(&a.out)?;
    let source = Source::open(&a.data, &splits)?;
    let timeout = Duration::from_secs_f64(a.timeout);
    let run_as = super::super::own_program(&a.teacher)?;
    let mut teacher = Teacher::start(&run_as)?;
    let identity = teacher.identity(timeout)?;
    let info = TeacherInfo {
        command: a.teacher.clone(),
        version: identity.version,
        git_hash: identity.git_hash,
        models: identity.models,
        files: command_files(&run_as),
        visits: a.visits,
        per_move: a.per_move,
        rules: a.rules.clone(),
        komi: a.komi.clone(),
    };
    let config = LabelConfig {
        data: a.data.display().to_string(),
        data_fingerprint: source.fingerprint(),
        splits,
        limit: a.limit,
        split_limits: split_limits.clone(),
        every: a.every,
        chunk: a.chunk,
        chunks,
        teacher: info,
        shard: a.shard,
    };
    if let Some(s) = a.shard
        && s.count > config.chunks
    {
        bail!(
            "--shard {s}: the run has {} chunks, fewer than the shards",
            config.chunks
        );
    }
    let options = LabelOptions {
        in_flight: a.in_flight.max(1),
        timeout,
        progress: !a.quiet,
    };
    let outcome = run_label(&config, &source, &mut teacher, &a.out, &a.from, &options)?;
    teacher.close(Duration::from_secs(5));
    crate::outln!(
        "labelled {} positions in {} chunks ({} queries) in {:.1} s: {:.1} positions/s, {:.1} queries/s",
        outcome.positions_now,
        outcome.chunks_now,
        outcome.queries_now,
        outcome.seconds,
        outcome.positions_now as f64 / outcome.seconds.max(1e-9),
        outcome.queries_now as f64 / outcome.seconds.max(1e-9)
    );
    match outcome.manifest {
        Some(m) => crate::outln!(
            "{}: a labelled dataset of {} positions (format version {}), teacher {} {}",
            a.out.display(),
            m.positions,
            m.format_version,
            config.teacher.command,
            config.teacher.version
        ),
        None => crate::outln!(
            "{}: shard {} labelled; merge the shards with `akushu dataset label {} --teacher ... --out DIR --from SHARD_DIRS`",
            a.out.display(),
            a.shard.map_or("?".into(), |s| s.to_string()),
            a.data.display()
        ),
    }
    Ok(())
}

/// clap parser for `--split-limit`: `SPLIT=N`.
fn split_limit_arg(text: &str) -> Result<(String, u64), String> {
    let bad = || format!("--split-limit {text:?}: expected SPLIT=N (train, validation or test)");
    let (split, n) = text.split_once('=').ok_or_else(bad)?;
    if !["train", "validation", "test"].contains(&split) {
        return Err(bad());
    }
    Ok((split.to_string(), n.trim().parse().map_err(|_| bad())?))
}

/// `--plan DIR`: the cluster scripts of a run of `chunks` chunks, and how to merge.
fn write_plan(a: &LabelArgs, dir: &std::path::Path, chunks: u32) -> Result<()> {
    use super::super::selfplay::{absolute, current_exe};
    use crate::arena::cluster::{ShardPlan, shell_quote};
    let (out, shards) = (absolute(&a.out)?, a.cluster.shards.min(chunks));
    let args = a.run_args();
    let quoted: Vec<String> = args.iter().map(|x| shell_quote(x)).collect();
    let plan = ShardPlan {
        name: "label",
        args,
        jobs: false,
        what: format!(
            "Teacher labels: {chunks} chunks in {shards} shards; task i labels the chunks c with\n\
             # (c - 1) % {shards} == i into {}/shard-i. Written by `akushu dataset label --plan`.",
            out.display()
        ),
        then: format!(
            "akushu {} --out DATA --from {}/shard-*",
            quoted.join(" "),
            out.display()
        ),
        shards,
        out,
        akushu: current_exe()?,
        workdir: absolute(std::path::Path::new("."))?,
        scripts: absolute(dir)?,
        slurm: a.cluster.slurm(),
    };
    plan.write_and_say(chunks)
}

/// Whether two paths name one folder (both resolved where they exist).
/// Whether `path` (which need not exist yet) is the folder `dir` or lies below it, links
/// resolved: the longest part of `path` that exists is resolved, the rest appended (its
/// `..` taken as written).
fn within(path: &std::path::Path, dir: &std::path::Path) -> bool {
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    let Ok(path) = std::path::absolute(path) else {
        return false;
    };
    // `a/new/../b` names `a/b`, though `a/new` does not exist for the resolution below.
    let mut path_buf = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                path_buf.pop();
            }
            std::path::Component::CurDir => {}
            c => path_buf.push(c),
        }
    }
    let path = path_buf;
    let mut rest = Vec::new();
    let mut at = path.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            let full = rest.iter().rev().fold(real, |p, c| p.join(c));
            return full.starts_with(&dir);
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return false,
        }
    }
}

fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
