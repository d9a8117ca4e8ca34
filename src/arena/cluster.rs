//! Cluster scripts for an experiment (`akushu experiment plan FILE --slurm --parallel`):
//! every arm split into shards (`akushu match --shard i/n`), a Slurm array job per arm, a
//! GNU parallel task list, and one merge step (`akushu match merge --complete` per arm, then
//! the experiment's report) that Slurm runs as a dependent job (`afterok`).
//!
//! The scripts only call `akushu match` and `akushu match merge` with the arm's resolved
//! configuration, so the merged folders are the folders `akushu experiment run` would have
//! written, game for game. A shard that fails or is cancelled leaves games missing: the merge
//! names them and their shard, and resubmitting that shard alone resumes it.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::experiment::{Arm, slug};
use super::runner::MatchConfig;
use super::selfplay_run::SelfplayConfig;
use crate::util::fsio::write_atomic;
use crate::util::output::{FileKind, FileTarget, file_target};

/// Options of the Slurm jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmOptions {
    /// Partitions a job may run in (`--partition=a,b`); empty: the cluster's default.
    pub partitions: Vec<String>,
    /// CPUs per shard task; the shard plays that many games at once.
    pub cpus_per_task: u32,
    /// Time limit per shard task (`--time`, Slurm's formats: `12:00:00`, `2-00:00:00`).
    pub time: String,
    /// Further `#SBATCH` options, each as given (`--account=go`, `--mem=2G`).
    pub extra: Vec<String>,
}

impl SlurmOptions {
    /// The `#SBATCH` lines of a job named `job` writing its log to `output` with `cpus`
    /// CPUs per task, these options' partitions, time and extra lines included.
    pub fn sbatch_lines(&self, job: &str, output: &Path, cpus: u32) -> String {
        let mut lines = vec![
            format!("#SBATCH --job-name={job}"),
            format!("#SBATCH --cpus-per-task={cpus}"),
            format!("#SBATCH --time={}", self.time),
        ];
        if !self.partitions.is_empty() {
            lines.push(format!("#SBATCH --partition={}", self.partitions.join(",")));
        }
        lines.push(format!("#SBATCH --output={}", output.display()));
        lines.extend(self.extra.iter().map(|e| format!("#SBATCH {e}")));
        lines.join("\n") + "\n"
    }
}

/// Everything the scripts need. Paths are absolute, so the scripts run from anywhere.
#[derive(Debug, Clone)]
pub struct ClusterPlan {
    /// The experiment file (for the report step).
    pub experiment: PathBuf,
    /// The experiment's name: its folder under `runs`.
    pub name: String,
    /// Whether the arms are the file's `[quick]` arms.
    pub quick: bool,
    pub arms: Vec<Arm>,
    /// The results folder (`<runs>/<name>/<arm>/` is an arm's merged folder).
    pub runs: PathBuf,
    /// Shards per arm.
    pub shards: u32,
    /// The akushu binary the jobs run.
    pub akushu: PathBuf,
    /// The folder the jobs run in (engine specs name model folders relative to it).
    pub workdir: PathBuf,
    /// Where the scripts and their logs go.
    pub scripts: PathBuf,
    pub slurm: SlurmOptions,
}

/// `text` as one word for `sh`: bare when it is plainly safe, else single-quoted.
pub fn shell_quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "=._-/:,@+%".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

fn quote_path(path: &Path) -> String {
    shell_quote(&path.display().to_string())
}

/// The `akushu match` options that give `config` (all but jobs, shard and folder).
pub fn match_args(config: &MatchConfig) -> Vec<String> {
    let mut args = vec![
        "--black".to_string(),
        config.black.clone(),
        "--white".into(),
        config.white.clone(),
        "--games".into(),
        config.games.to_string(),
        "--seed".into(),
        config.seed.to_string(),
        "--komi".into(),
        config.komi.to_string(),
        "--max-moves".into(),
        config.max_moves.to_string(),
        "--genmove-timeout".into(),
        config.timeouts.genmove_s.to_string(),
        "--command-timeout".into(),
        config.timeouts.command_s.to_string(),
    ];
    if config.alternate {
        args.push("--alternate".into());
    }
    if let Some(t) = &config.time {
        args.extend([
            "--time".into(),
            t.system.clone(),
            "--time-grace".into(),
            t.grace.to_string(),
        ]);
    }
    args
}

impl ClusterPlan {
    /// Checks what the scripts would otherwise carry into a broken job: shard counts,
    /// and `#SBATCH` values that Slurm reads up to the first blank.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.arms.is_empty() {
            bail!(
                "{}: experiment {} plays no matches (a curve experiment): nothing to shard",
                self.experiment.display(),
                self.name
            );
        }
        if self.shards == 0 {
            bail!("--shards must be at least 1");
        }
        if self.slurm.cpus_per_task == 0 {
            bail!("--cpus-per-task must be at least 1");
        }
        for arm in &self.arms {
            if self.shards > arm.config.games {
                bail!(
                    "--shards {} exceeds the {} games of arm {} of {}: some shards would have none",
                    self.shards,
                    arm.config.games,
                    arm.label,
                    self.experiment.display()
                );
            }
        }
        let one_word = |what: &str, v: &str| {
            if v.is_empty() || v.chars().any(char::is_whitespace) {
                bail!("{what} {v:?}: must be one word without blanks");
            }
            Ok(())
        };
        for p in &self.slurm.partitions {
            one_word("--partition", p)?;
        }
        one_word("--time", &self.slurm.time)?;
        for e in &self.slurm.extra {
            if !e.starts_with('-') || e.contains('\n') {
                bail!("--sbatch {e:?}: give one sbatch option per --sbatch, such as --mem=2G");
            }
        }
        Ok(())
    }

    /// An arm's merged folder: the one `akushu experiment run` uses.
    pub fn arm_dir(&self, arm: &Arm) -> PathBuf {
        self.runs.join(&self.name).join(slug(&arm.label))
    }

    /// The folder holding an arm's shard folders (`0`, `1`, ...).
    pub fn shards_dir(&self, arm: &Arm) -> PathBuf {
        self.runs
            .join(&self.name)
            .join(format!("{}.shards", slug(&arm.label)))
    }

    /// The command that plays shard `index` (a number, or a shell expression such as
    /// `"$i"`) of `arm` with `jobs` games at once (likewise).
    pub fn shard_command(&self, arm: &Arm, index: &str, jobs: &str) -> String {
        let args: Vec<String> = match_args(&arm.config)
            .iter()
            .map(|a| shell_quote(a))
            .collect();
        let dir = format!("{}/", self.shards_dir(arm).display());
        format!(
            "{} match {} --jobs {jobs} --shard {index}/{} --quiet --out {}{index}",
            quote_path(&self.akushu),
            args.join(" "),
            self.shards,
            shell_quote(&dir),
        )
    }

    /// The `#SBATCH` lines every job shares, after the job's own.
    fn sbatch_common(&self, job: &str, output: &str, cpus: u32) -> String {
        self.slurm
            .sbatch_lines(job, &self.scripts.join("logs").join(output), cpus)
    }

    fn job_name(&self, what: &str) -> String {
        format!("akushu-{}-{}", slug(&self.name), slug(what))
    }

    /// The file name of an arm's Slurm array script.
    pub fn array_script_name(arm: &Arm) -> String {
        format!("shards-{}.sbatch", slug(&arm.label))
    }

    /// The Slurm array job of one arm: task i plays shard i/n. The shard count is written
    /// out rather than taken from `SLURM_ARRAY_TASK_COUNT`, so that resubmitting one task
    /// (`sbatch --array=3 FILE`) plays the same share of the games.
    pub fn slurm_array_script(&self, arm: &Arm) -> String {
        let n = self.shards;
        format!(
            "#!/bin/sh\n#SBATCH --array=0-{last}\n{common}\
             # Arm {label} of experiment {name}: {games} games in {n} shards; task i plays the\n\
             # games g with (g - 1) % {n} == i into {dir}/i.\n\
             # Written by `akushu experiment plan`. Resubmit one shard: sbatch --array=I {me}\n\
             # (a rerun resumes the shard's folder). The merge step is merge.sh.\n\
             set -eu\n\
             cd {workdir}\n\
             i=${{SLURM_ARRAY_TASK_ID:?submit this with sbatch: it is an array job}}\n\
             exec {command}\n",
            last = n - 1,
            common = self.sbatch_common(
                &self.job_name(&arm.label),
                "%x-%A_%a.out",
                self.slurm.cpus_per_task
            ),
            label = arm.label,
            name = self.name,
            games = arm.config.games,
            dir = self.shards_dir(arm).display(),
            me = self.scripts.join(Self::array_script_name(arm)).display(),
            workdir = quote_path(&self.workdir),
            command = self.shard_command(arm, "\"$i\"", "\"${SLURM_CPUS_PER_TASK:-1}\""),
        )
    }

    /// The merge step: each arm's shards into its folder (failing, after merging what is
    /// there, when games are missing), then the experiment's report. A plain `sh` script
    /// whose `#SBATCH` lines make it a Slurm job too.
    pub fn merge_script(&self) -> String {
        let mut text = format!(
            "#!/bin/sh\n{common}\
             # Merge step of experiment {name}: each arm's shard folders into its folder under\n\
             # {runs}, then the report. Fails when a game is missing, naming its shard.\n\
             # Written by `akushu experiment plan`; run it with sh or sbatch.\n\
             set -u\n\
             cd {workdir}\n\
             status=0\n",
            common = self.sbatch_common(&self.job_name("merge"), "%x-%j.out", 1),
            name = self.name,
            runs = self.runs.display(),
            workdir = quote_path(&self.workdir),
        );
        for arm in &self.arms {
            let shards = format!("{}/", self.shards_dir(arm).display());
            text += &format!(
                "{} match merge --complete --out {} {}* || status=1\n",
                quote_path(&self.akushu),
                quote_path(&self.arm_dir(arm)),
                shell_quote(&shards),
            );
        }
        text += &format!(
            "{} experiment run {}{} --out {} --no-play --quiet >{} || status=1\n\
             echo \"report: {}\"\n\
             exit $status\n",
            quote_path(&self.akushu),
            quote_path(&self.experiment),
            if self.quick { " --quick" } else { "" },
            quote_path(&self.runs),
            quote_path(&self.scripts.join("logs").join("report.out")),
            self.runs.join(&self.name).join("report.md").display(),
        );
        text
    }

    /// Submits every arm's array job and then the merge job, which waits for all of them
    /// (`afterok`) and is cancelled if one fails (`--kill-on-invalid-dep=yes`).
    pub fn submit_script(&self) -> String {
        let mut text = String::from(
            "#!/bin/sh\n\
             # Submits the array job of every arm, then the merge job that runs once they all\n\
             # succeed. Extra arguments go to every sbatch call (--hold, --account=A, ...).\n\
             # Prints one line per job: submitted <what> <job id>.\n\
             # Written by `akushu experiment plan`.\n\
             set -eu\n\
             here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
             ids=\"\"\n",
        );
        for arm in &self.arms {
            text += &format!(
                "id=$(sbatch --parsable \"$@\" \"$here/{file}\")\n\
                 id=${{id%%;*}}\n\
                 ids=\"$ids:$id\"\n\
                 echo \"submitted shards {label} $id\"\n",
                file = Self::array_script_name(arm),
                label = slug(&arm.label),
            );
        }
        text += "id=$(sbatch --parsable \"$@\" --dependency=\"afterok$ids\" --kill-on-invalid-dep=yes \"$here/merge.sh\")\n\
                 echo \"submitted merge ${id%%;*}\"\n";
        text
    }

    /// GNU parallel's input: one shard command per line, every arm, one game at a time.
    /// Each line enters the working folder itself, so it runs the same on a remote host
    /// (`--sshloginfile`) that shares the filesystem.
    pub fn parallel_tasks(&self) -> String {
        let mut text = String::new();
        for arm in &self.arms {
            for i in 0..self.shards {
                text += &format!(
                    "cd {} && {}\n",
                    quote_path(&self.workdir),
                    self.shard_command(arm, &i.to_string(), "1")
                );
            }
        }
        text
    }

    /// Plays every shard with GNU parallel (one per core unless told otherwise), then runs
    /// the merge step whatever happened, so that missing games are reported.
    pub fn parallel_script(&self) -> String {
        format!(
            "#!/bin/sh\n\
             # Plays every shard of experiment {name} with GNU parallel, then merges (merge.sh).\n\
             # Extra arguments go to parallel: --jobs 8; --sshloginfile hosts.txt where the\n\
             # hosts share this filesystem. Rerun to resume: a finished shard returns at once.\n\
             # Written by `akushu experiment plan`.\n\
             set -u\n\
             here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
             parallel --halt never --joblog \"$here/logs/parallel.joblog\" \"$@\" <\"$here/parallel-tasks.txt\"\n\
             status=$?\n\
             sh \"$here/merge.sh\" || status=1\n\
             exit $status\n",
            name = self.name,
        )
    }

    /// Writes the chosen scripts (and `merge.sh`, which both use) into `scripts`, each
    /// atomically, and creates the log folder the jobs write to. Returns the files written.
    pub fn write(&self, slurm: bool, parallel: bool) -> anyhow::Result<Vec<PathBuf>> {
        self.check()?;
        let mut files: Vec<(PathBuf, String)> =
            vec![(self.scripts.join("merge.sh"), self.merge_script())];
        if slurm {
            for arm in &self.arms {
                files.push((
                    self.scripts.join(Self::array_script_name(arm)),
                    self.slurm_array_script(arm),
                ));
            }
            files.push((self.scripts.join("submit-slurm.sh"), self.submit_script()));
        }
        if parallel {
            files.push((
                self.scripts.join("parallel-tasks.txt"),
                self.parallel_tasks(),
            ));
            files.push((self.scripts.join("parallel.sh"), self.parallel_script()));
        }
        write_plan_files(&self.scripts, &files)?;
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }
}

/// A sharded job's shards as cluster jobs (`akushu selfplay ... --plan DIR --shards N`,
/// `akushu dataset label ... --plan DIR --shards N`): a Slurm array job (`NAME.sbatch`, task
/// i runs shard i/n into `OUT/shard-i`) and GNU parallel's task list with `parallel.sh`. The
/// shards' folders are then taken together (the job's `then` command): the same result as
/// one machine's run.
#[derive(Debug, Clone)]
pub struct ShardPlan {
    /// The script's and the Slurm job's name (`selfplay`, `label`).
    pub name: &'static str,
    /// The akushu arguments of the job, all but the shard, the folder and `--jobs`.
    pub args: Vec<String>,
    /// Whether the job takes `--jobs` (games at once): Slurm's CPUs per task, 1 in GNU
    /// parallel's tasks.
    pub jobs: bool,
    /// What the job does, for the scripts' comments: lines after the first start `# `
    /// (`Self-play: 100 games in 4 shards; task i plays the games g with\n# (g - 1) % 4 ==
    /// i into OUT/shard-i. Written by ...`).
    pub what: String,
    /// The command that takes the shards together, for the comments and the user.
    pub then: String,
    pub shards: u32,
    /// The folder holding the shard folders.
    pub out: PathBuf,
    pub akushu: PathBuf,
    pub workdir: PathBuf,
    pub scripts: PathBuf,
    pub slurm: SlurmOptions,
}

impl ShardPlan {
    /// The command that runs shard `index` (a number or a shell expression) with `jobs`
    /// games at once.
    pub fn shard_command(&self, index: &str, jobs: &str) -> String {
        let args: Vec<String> = self.args.iter().map(|a| shell_quote(a)).collect();
        let dir = format!("{}/shard-", self.out.display());
        let jobs = if self.jobs {
            format!(" --jobs {jobs}")
        } else {
            String::new()
        };
        format!(
            "{} {}{jobs} --shard {index}/{} --quiet --out {}{index}",
            quote_path(&self.akushu),
            args.join(" "),
            self.shards,
            shell_quote(&dir),
        )
    }

    fn sbatch_name(&self) -> String {
        format!("{}.sbatch", self.name)
    }

    /// The Slurm array job: task i runs shard i/n (the count written out, so resubmitting
    /// one task runs the same share).
    pub fn slurm_array_script(&self) -> String {
        let sbatch = self.slurm.sbatch_lines(
            &format!("akushu-{}", self.name),
            &self.scripts.join("logs").join("%x-%A_%a.out"),
            self.slurm.cpus_per_task,
        );
        let jobs = if self.jobs {
            "\"${SLURM_CPUS_PER_TASK:-1}\""
        } else {
            ""
        };
        format!(
            "#!/bin/sh\n#SBATCH --array=0-{last}\n{sbatch}\
             # {what}\n\
             # Resubmit one shard: sbatch --array=I {me} (a rerun resumes its folder).\n\
             # Then: {then}\n\
             set -eu\n\
             cd {workdir}\n\
             i=${{SLURM_ARRAY_TASK_ID:?submit this with sbatch: it is an array job}}\n\
             exec {command}\n",
            last = self.shards - 1,
            what = self.what,
            me = self.scripts.join(self.sbatch_name()).display(),
            then = self.then,
            workdir = quote_path(&self.workdir),
            command = self.shard_command("\"$i\"", jobs),
        )
    }

    /// GNU parallel's input: one shard per line, one game at a time each.
    pub fn parallel_tasks(&self) -> String {
        (0..self.shards)
            .map(|i| {
                format!(
                    "cd {} && {}\n",
                    quote_path(&self.workdir),
                    self.shard_command(&i.to_string(), "1")
                )
            })
            .collect()
    }

    /// [`ShardPlan::write`], then says what was written and how to run it and merge.
    pub fn write_and_say(&self, units: u32) -> anyhow::Result<()> {
        for path in self.write(units)? {
            crate::outln!("wrote {}", path.display());
        }
        crate::outln!(
            "run: sbatch {} (or sh {} --jobs N); then {}",
            self.scripts.join(self.sbatch_name()).display(),
            self.scripts.join("parallel.sh").display(),
            self.then
        );
        Ok(())
    }

    /// Writes `NAME.sbatch`, `parallel-tasks.txt` and `parallel.sh` into `scripts`; `units`
    /// is how many shardable units the job has (`--shards` may not exceed it).
    pub fn write(&self, units: u32) -> anyhow::Result<Vec<PathBuf>> {
        if self.shards == 0 || self.shards > units {
            bail!(
                "--shards {} must be from 1 to the job's {units} units (games or chunks)",
                self.shards
            );
        }
        let parallel = format!(
            "#!/bin/sh\n\
             # Runs every {} shard with GNU parallel; extra arguments go to parallel\n\
             # (--jobs 8, --sshloginfile hosts.txt). Rerun to resume. Written by `akushu {} --plan`.\n\
             set -u\n\
             here=$(cd \"$(dirname \"$0\")\" && pwd)\n\
             exec parallel --halt never --joblog \"$here/logs/parallel.joblog\" \"$@\" <\"$here/parallel-tasks.txt\"\n",
            self.name,
            self.args.first().map_or(self.name, String::as_str)
        );
        let files = [
            (
                self.scripts.join(self.sbatch_name()),
                self.slurm_array_script(),
            ),
            (
                self.scripts.join("parallel-tasks.txt"),
                self.parallel_tasks(),
            ),
            (self.scripts.join("parallel.sh"), parallel),
        ];
        write_plan_files(&self.scripts, &files)?;
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }
}

/// A self-play run's plan: its options as a [`ShardPlan`]'s arguments. `dataset build
/// --selfplay OUT/shard-*` takes the shard folders together, game for game the dataset of
/// one machine's run.
pub fn selfplay_plan_args(c: &SelfplayConfig) -> Vec<String> {
    let mut args = vec!["selfplay".to_string()];
    for e in &c.engines {
        args.extend(["--engine".to_string(), e.clone()]);
    }
    args.extend([
        "--games".into(),
        c.games.to_string(),
        "--seed".into(),
        c.seed.to_string(),
        "--komi".into(),
        c.rules.komi.to_string(),
        "--max-moves".into(),
        c.rules.max_moves.to_string(),
        "--random-moves".into(),
        c.rules.random_moves.to_string(),
        "--temperature".into(),
        c.rules.temperature.to_string(),
        "--temperature-moves".into(),
        c.rules.temperature_moves.to_string(),
    ]);
    args
}

/// The kind of the files a plan writes: replaced only where an earlier plan wrote them.
const PLAN_FILE: FileKind = FileKind {
    name: "cluster script or task list",
    signature: b"",
    mark: Some(written_by_a_plan),
};

/// Whether `path` is a file a plan wrote: a shell script that runs akushu, or a task list
/// whose every line runs akushu in a folder.
fn written_by_a_plan(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    if text.starts_with("#!/bin/sh\n") {
        return text.contains("akushu");
    }
    !text.is_empty()
        && text
            .lines()
            .all(|l| l.starts_with("cd ") && l.contains("akushu"))
}

/// Writes a plan's files into `dir` (and its `logs/` folder), each atomically, after
/// checking all of them: a file the plan did not write, a symbolic link or a folder in the
/// way refuses the whole plan before anything is written.
fn write_plan_files(dir: &Path, files: &[(PathBuf, String)]) -> anyhow::Result<()> {
    for (path, _) in files {
        if let FileTarget::Stream(_) = file_target(path, PLAN_FILE, false, &[])? {
            anyhow::bail!(
                "{}: not a regular file: a plan writes files only",
                path.display()
            );
        }
    }
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    for (path, text) in files {
        write_atomic(path, text.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> ClusterPlan {
        let arm = |label: &str, black: &str| Arm {
            label: label.into(),
            x: None,
            series: None,
            same_games_as: None,
            config: MatchConfig {
                black: black.into(),
                white: "gtp:gnugo --mode gtp --level 10".into(),
                games: 8,
                alternate: true,
                ..MatchConfig::default()
            },
        };
        ClusterPlan {
            experiment: "/r/experiments/t.toml".into(),
            name: "t".into(),
            quick: true,
            arms: vec![arm("x=41", "uct:sims=10"), arm("it's", "random")],
            runs: "/r/runs".into(),
            shards: 4,
            akushu: "/r/target/release/akushu".into(),
            workdir: "/r".into(),
            scripts: "/r/runs/t/cluster".into(),
            slurm: SlurmOptions {
                partitions: vec!["a".into(), "b".into()],
                cpus_per_task: 2,
                time: "1:00:00".into(),
                extra: vec!["--mem=1G".into()],
            },
        }
    }

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(shell_quote("uct:sims=10,expand=2"), "uct:sims=10,expand=2");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn array_script_names_its_shard_count_and_resources() {
        let p = plan();
        let s = p.slurm_array_script(&p.arms[0]);
        assert!(s.starts_with("#!/bin/sh\n#SBATCH --array=0-3\n"), "{s}");
        for line in [
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --partition=a,b",
            "#SBATCH --time=1:00:00",
            "#SBATCH --mem=1G",
            "#SBATCH --output=/r/runs/t/cluster/logs/%x-%A_%a.out",
        ] {
            assert!(s.contains(line), "{line} missing from\n{s}");
        }
        assert!(
            s.contains("--shard \"$i\"/4 --quiet --out /r/runs/t/x=41.shards/\"$i\""),
            "{s}"
        );
        assert!(s.contains("--white 'gtp:gnugo --mode gtp --level 10'"));
        assert!(s.contains("--alternate"));
        // Every #SBATCH line comes before the first command, or sbatch ignores it.
        let first_command = s.find("\nset -eu").unwrap();
        assert!(s.rfind("#SBATCH").unwrap() < first_command);
    }

    #[test]
    fn merge_and_submit_cover_every_arm() {
        let p = plan();
        let merge = p.merge_script();
        assert!(merge.contains("merge --complete --out /r/runs/t/x=41 /r/runs/t/x=41.shards/*"));
        assert!(merge.contains("--out /r/runs/t/it_s /r/runs/t/it_s.shards/*"));
        assert!(merge.contains("experiment run /r/experiments/t.toml --quick --out /r/runs"));
        let submit = p.submit_script();
        assert_eq!(submit.matches("sbatch --parsable").count(), 3);
        assert!(submit.contains("--dependency=\"afterok$ids\" --kill-on-invalid-dep=yes"));
        assert_eq!(p.parallel_tasks().lines().count(), 8);
        assert!(
            p.parallel_tasks()
                .lines()
                .nth(5)
                .unwrap()
                .ends_with("--jobs 1 --shard 1/4 --quiet --out /r/runs/t/it_s.shards/1")
        );
    }

    #[test]
    fn bad_options_are_refused() {
        let mut p = plan();
        p.shards = 9;
        assert!(
            p.check()
                .unwrap_err()
                .to_string()
                .contains("exceeds the 8 games")
        );
        let mut p = plan();
        p.slurm.time = "1 day".into();
        assert!(p.check().is_err());
        let mut p = plan();
        p.slurm.extra = vec!["mem=1G".into()];
        assert!(p.check().is_err());
        let mut p = plan();
        p.arms.clear();
        assert!(
            p.check()
                .unwrap_err()
                .to_string()
                .contains("nothing to shard")
        );
        assert!(plan().check().is_ok());
    }
}
