//! The `akushu` command line: one file per subcommand, this file only parses and dispatches.
//! Every subcommand prints its resolved configuration (seed included) before it starts.

use clap::{Parser, Subcommand};

pub mod analysis;
pub mod analyze;
pub mod bench;
pub mod dataset;
pub mod eval;
pub mod experiment;
pub mod gtp;
pub mod loop_cmd;
pub mod match_cmd;
pub mod model;
pub mod provenance;
pub mod rate;
pub mod reproduce;
pub mod runs;
pub mod selfplay;
pub mod train;
pub mod yose;

/// The main jobs, one line each (`akushu COMMAND --help` shows each command's own examples).
const EXAMPLES: &str = "\
Examples:
  akushu reproduce --quick                               # the whole pipeline, few games
  akushu dataset build --sgf ../shared/data/ogs9x9.tar.xz --out data/ogs-all --result-known   # every record
  akushu train --data data/paper --model cnn --out models/my-cnn
  akushu eval --model models/default --data data/paper --exclude-seen --png curve.png
  akushu gtp --engine strong8:threads=2                  # for GoGui, Sabaki, Lizzie
  akushu match --black strong --white uct --games 10 --out runs/try
  akushu experiment run experiments/tree_pruning.toml --quick";

/// akushu: learn bad moves in 9x9 Go and prune Monte-Carlo search with them.
#[derive(Debug, Parser)]
#[command(name = "akushu", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Speed measurements (playouts, ...).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Game records to training data: build, stats, show.
    #[command(subcommand)]
    Dataset(dataset::DatasetCommand),
    /// Play Go over GTP on stdin/stdout with an engine spec.
    #[command(after_help = "\
Examples:
  akushu gtp                                    # strong8, the strongest engine, one thread
  akushu gtp --engine strong8:threads=2         # the same on two threads sharing one tree
  akushu gtp --engine \"uct:sims=10000,prune=nn:41@0,prune_count=board\"   # the paper's
  akushu gtp --engine random                    # a quick opponent for testing a GUI")]
    Gtp(gtp::GtpArgs),
    /// KataGo's JSON analysis protocol on stdin/stdout (9x9, area rules), for KaTrain and
    /// other analysis tools: one query per line, one response per analysed turn.
    #[command(after_help = "\
Examples:
  akushu analysis                                # strong8; then write queries on stdin
  akushu analysis --engine strong8:threads=2     # for KaTrain: its engine command line
  echo '{\"id\":\"a\",\"moves\":[[\"B\",\"E5\"]],\"maxVisits\":500,\"includeOwnership\":true}' | akushu analysis --engine uct")]
    Analysis(analysis::AnalysisArgs),
    /// Board analysis of an SGF position: chains, groups, territory, real and false eyes,
    /// useless moves (kake-me); or, with `--pruner`, what a pruner ranks and prunes there.
    #[command(after_help = "\
Examples:
  akushu analyze --sgf report/runs/gnugo_strong/cnn_depth_1/sgf/game-00001.sgf --move 40
  akushu analyze --sgf report/runs/gnugo_strong/cnn_depth_1/sgf/game-00001.sgf --move 40 \\
      --pruner nn:models/cnn-human-5x32-gpu2 --prune 41")]
    Analyze(analyze::AnalyzeArgs),
    /// Exact endgame solver (`yose FILE`) and its benchmark (`yose bench DIR`).
    Yose(yose::YoseArgs),
    /// Train a bad-move network (mlp: the paper's; cnn: ours) into a model directory.
    #[command(after_help = "\
Examples:
  akushu train --data data/paper --model mlp --out models/my-mlp     # the paper's network
  akushu train --data data/paper --model cnn --epochs 2 --out models/my-cnn
  akushu train --data data/paper --out models/my-cnn --resume --epochs 4   # continue it")]
    Train(train::TrainArgs),
    /// Error-rate curve, top-k and baselines of a model on a dataset split.
    #[command(after_help = "\
Examples:
  akushu eval --model models/default --data data/paper --exclude-seen --csv curve.csv --png curve.png
  akushu eval --model models/cnn --model rules --model random --data data/paper --exclude-seen --png cmp.png
  akushu eval --model models/default --sgf ../shared/data/engine9x9.tar.xz
  akushu eval --model models/cnn-human-5x32-gpu2 --data data/paper --exclude-seen --by phase,rank \\
    --breakdown-csv breakdown.csv --positions-csv positions.csv   # where it errs
  akushu eval --model models/cnn-human-5x32-gpu2 --model models/cnn-human-5x32-dan2 --data data/paper \
    --exclude-seen --png zoom.png --x-range 55..80 --y-max 0.3   # where close curves part
  akushu eval --truth-redraw report/teacher/truth.csv --png truth.png   # the engine-judged chart from its CSV")]
    Eval(eval::EvalArgs),
    /// Play a match between two engines (in-process specs or `gtp:` commands); `match merge`
    /// combines shard folders.
    #[command(after_help = "\
Examples:
  akushu match --black \"uct:sims=10000,prune=nn:41@0,prune_count=board\" --white uct \\
      --games 100 --out runs/tree41
  akushu match --black strong --alternate \\
      --white \"gtp:gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead\" \\
      --games 20 --out runs/gnugo
  akushu match --black strong2:sims=1000000 --white strong:sims=1000000 \\
      --time-per-move 0.5 --jobs 2 --games 20 --out runs/equal-time   # the clock stops both
  akushu match --black strong3 --white strong2 --time-per-move 0.25 --alternate \\
      --games 800 --sprt elo0=0,elo1=35 --out runs/sprt   # stops once decided
  akushu match merge runs/a runs/b --out runs/all")]
    Match(match_cmd::MatchCommand),
    /// Self-play: an engine plays itself and writes training records (root visits, value,
    /// result, final ownership) and SGF; resumable and shardable like `match`.
    #[command(after_help = "\
Examples:
  akushu selfplay --engine strong3:sims=800 --games 200 --out runs/sp1
  akushu selfplay --engine uct:sims=200 --games 20 --random-moves 4 --temperature-moves 10 --out runs/sp-quick
  akushu selfplay --engine strong3:sims=800 --games 1000 --shard 0/4 --out runs/sp-s0
  akushu selfplay --engine strong3:sims=800 --games 1000 --out runs/sp --plan runs/sp-jobs --shards 8
  akushu dataset build --selfplay runs/sp1 --out data/sp1")]
    Selfplay(selfplay::SelfplayArgs),
    /// The self-play loop: generations of self-play with the best network, training from it,
    /// and a gating match at equal time; resumable at every step.
    #[command(after_help = "\
Examples:
  akushu loop experiments/loops/gpu2.toml --out runs/loop-gpu2
  akushu loop experiments/loops/quick.toml --out /tmp/loop-quick --quiet")]
    Loop(loop_cmd::LoopArgs),
    /// Ratings of every player in match folders: Bradley-Terry (logistic Elo) with 95%
    /// intervals, anchored on GNU Go 3.8 level 10 = 0.
    #[command(after_help = "\
Examples:
  akushu rate report/runs                       # every committed match folder
  akushu rate report/runs/strong_gnugo runs/my-match")]
    Rate(rate::RateArgs),
    /// A finished run's SGFs as one archive: `pack` turns each games folder's `sgf/` into
    /// `sgf.tar.xz` (deterministic, read by every reader of run folders), `unpack` back.
    #[command(
        subcommand,
        after_help = "\
Examples:
  akushu runs pack report/runs/strong7_lcb report/loops/gpu2   # every games folder in them
  akushu runs unpack report/runs/strong7_lcb                    # before resuming it"
    )]
    Runs(runs::RunsCommand),
    /// Networks in and out of Python: `export` a model directory as a numpy `.npz`,
    /// `import` one (trained elsewhere, e.g. PyTorch) into a new model directory.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// What a model was trained on: datasets by fingerprint, its `--init-from` chain, its
    /// training games; `--recover` records it for models trained before it was kept.
    #[command(after_help = "\
Examples:
  akushu provenance models/cnn-human-5x32-dan2
  akushu provenance models/default --recover --data data/paper \\
      --note \"data/paper as built before copies were dropped: same counts as the model's log\"   # a model from before records were kept")]
    Provenance(provenance::ProvenanceArgs),
    /// Run the paper's experiments from `experiments/*.toml` files.
    #[command(subcommand)]
    Experiment(experiment::ExperimentCommand),
    /// Run every experiment and write report/REPORT.md (`--quick`: a short check of the whole pipeline).
    #[command(after_help = "\
Examples:
  akushu reproduce --quick                                  # minutes; report/REPORT.md
  akushu reproduce --quick --only error_rate --out runs/quick-curve   # its one curve experiment, seconds
  akushu reproduce --only tree_pruning,soft_pruning --jobs 2
  akushu reproduce --no-play --runs report/runs --out report/full   # report the committed games")]
    Reproduce(reproduce::ReproduceArgs),
}

/// Parses the command line and runs the subcommand.
pub fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Bench(cmd) => bench::run(cmd),
        Command::Dataset(cmd) => dataset::run(cmd),
        Command::Gtp(args) => gtp::run(args),
        Command::Analysis(args) => analysis::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Yose(args) => yose::run(args),
        Command::Train(args) => train::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Match(cmd) => match_cmd::run(cmd),
        Command::Rate(args) => rate::run(args),
        Command::Runs(cmd) => runs::run(cmd),
        Command::Model(cmd) => model::run(cmd),
        Command::Provenance(args) => provenance::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Loop(args) => loop_cmd::run(args),
        Command::Experiment(cmd) => experiment::run(cmd),
        Command::Reproduce(args) => reproduce::run(args),
    }
}

/// `command` with a leading `akushu` word replaced by this program's path (so `akushu
/// analysis` is the same build, found whether or not `akushu` is on the PATH): what
/// `dataset label` and `match openings` run as their teacher.
pub(crate) fn own_program(command: &str) -> anyhow::Result<String> {
    let trimmed = command.trim_start();
    match trimmed.strip_prefix("akushu") {
        Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
            let me = selfplay::current_exe()?;
            Ok(format!(
                "{}{rest}",
                crate::arena::cluster::shell_quote(&me.display().to_string())
            ))
        }
        _ => Ok(command.to_string()),
    }
}

/// The command line this process was started with, as a shell would take it back
/// (`akushu eval --data 'my data' ...`): what a command's first output line records, instead
/// of a dump of its parsed arguments.
pub fn command_line() -> String {
    let quote = |a: String| {
        let plain = !a.is_empty()
            && a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,@+%".contains(&b));
        if plain {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    std::iter::once("akushu".to_string())
        .chain(std::env::args().skip(1).map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every `akushu ...` example line of every subcommand's help text, continuation lines
/// joined and `#` comments dropped: the test suite parses each one and runs each one on tiny
/// inputs (`tests/help_examples.rs`).
pub fn help_examples() -> Vec<String> {
    use clap::CommandFactory;
    let mut out = Vec::new();
    examples(&Cli::command(), &mut out);
    out
}

/// The `akushu ...` commands among `lines`, as a reader would type them: continuation lines
/// (ending in `\\`) joined, `#` comments dropped, other lines skipped. Help texts and
/// README.md's shell blocks are read the same way.
pub fn command_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for raw in lines {
        let text = raw.trim();
        let text = text.split(" # ").next().unwrap_or(text).trim();
        if line.is_empty() && !text.starts_with("akushu ") {
            continue;
        }
        match text.strip_suffix('\\') {
            Some(head) => line += head,
            None => {
                line += text;
                out.push(std::mem::take(&mut line));
            }
        }
    }
    out
}

/// Every `akushu ...` example line of every help text (continuation lines joined, `#`
/// comments dropped).
fn examples(cmd: &clap::Command, out: &mut Vec<String>) {
    if let Some(help) = cmd.get_after_help() {
        out.extend(command_lines(help.to_string().lines()));
    }
    for sub in cmd.get_subcommands() {
        examples(sub, out);
    }
}

/// An example line as a shell splits it: on spaces outside double quotes (enough for the
/// examples).
pub fn example_words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(ch),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_help_example_parses() {
        let lines = help_examples();
        assert!(lines.len() >= 20, "only {} examples found", lines.len());
        for line in &lines {
            if let Err(e) = Cli::try_parse_from(example_words(line)) {
                panic!("help example `{line}` does not parse:\n{e}");
            }
        }
    }

    /// Two move caps, each named once: self-play's (its rules, `selfplay --max-moves`, the
    /// loop's `[selfplay]` and `[gate]`) and a match's (`match --max-moves`, a match's config,
    /// an experiment's `[match]`); every default of a cap is one of the two.
    #[test]
    fn every_move_cap_default_is_selfplays_or_a_matchs() {
        use crate::arena::game::{MATCH_MAX_MOVES, SELFPLAY_MAX_MOVES};
        let parsed = |words: &[&str]| Cli::try_parse_from(words).unwrap().command;
        let Command::Selfplay(selfplay) =
            parsed(&["akushu", "selfplay", "--engine", "random", "--out", "x"])
        else {
            unreachable!("selfplay parses as selfplay")
        };
        let Command::Match(matched) = parsed(&[
            "akushu", "match", "--black", "random", "--white", "random", "--out", "x",
        ]) else {
            unreachable!("match parses as match")
        };
        let quick = crate::selfplay_loop::LoopConfig::from_file(std::path::Path::new(
            "experiments/loops/quick.toml",
        ))
        .unwrap();
        let selfplay_caps = [
            (
                "self-play rules",
                crate::arena::selfplay::GameRules::default().max_moves,
            ),
            ("selfplay --max-moves", selfplay.rules.max_moves),
            (
                "loop [selfplay]",
                crate::selfplay_loop::SelfplaySection::default()
                    .rules
                    .max_moves,
            ),
            (
                "loop [gate]",
                crate::selfplay_loop::GateSection::default().max_moves,
            ),
            ("quick.toml's gate (no max_moves key)", quick.gate.max_moves),
        ];
        let match_caps = [
            (
                "match config",
                crate::arena::runner::MatchConfig::default().max_moves,
            ),
            ("match --max-moves", matched.run.rules.max_moves),
            (
                "experiment [match]",
                crate::arena::experiment::Settings::default()
                    .rules
                    .max_moves,
            ),
        ];
        for (what, cap) in selfplay_caps {
            assert_eq!(cap, SELFPLAY_MAX_MOVES, "{what}");
        }
        for (what, cap) in match_caps {
            assert_eq!(cap, MATCH_MAX_MOVES, "{what}");
        }
    }

    /// Every place a komi is set takes the rules' one range and refuses what lies outside it
    /// with the rules' one message: `selfplay --komi` and `match --komi`, self-play's rules,
    /// a match's config, an experiment's `[match]`, a loop's `[selfplay]` (self-play and its
    /// gate). A komi inside the range but beyond a narrower one is taken by each.
    #[test]
    fn every_komi_setting_has_the_rules_range_and_message() {
        use crate::rules::{MAX_KOMI, check_komi};
        let inside = MAX_KOMI / 2.0;
        let outside = MAX_KOMI + 0.5;
        let message = check_komi("komi", outside).unwrap_err();
        assert!(check_komi("komi", inside).is_ok());

        let command = |sub: &[&str], komi: f32| {
            let komi = komi.to_string();
            let mut words = vec!["akushu"];
            words.extend(sub);
            words.extend(["--komi", &komi, "--out", "/nonexistent/out"]);
            Cli::try_parse_from(words)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let commands: [&[&str]; 2] = [
            &["selfplay", "--engine", "uct:sims=10"],
            &["match", "--black", "random", "--white", "random"],
        ];
        let config = |komi: f32| -> Vec<(&str, Result<(), String>)> {
            let rules = crate::arena::selfplay::GameRules {
                komi,
                ..Default::default()
            };
            let matched = crate::arena::runner::MatchConfig {
                komi,
                ..Default::default()
            };
            let experiment = format!(
                "name = \"t\"\ntitle = \"t\"\n[match]\nkomi = {komi}\n[players]\n\
                 black = \"random\"\nwhite = \"random\"\n[[arm]]\nlabel = \"a\"\n"
            );
            let mut looped = crate::selfplay_loop::LoopConfig::from_file(std::path::Path::new(
                "experiments/loops/quick.toml",
            ))
            .unwrap();
            looped.selfplay.rules.komi = komi;
            fn text<T>(r: anyhow::Result<T>) -> Result<(), String> {
                r.map(|_| ()).map_err(|e| format!("{e:#}"))
            }
            vec![
                ("self-play rules", text(rules.validate())),
                ("match config", text(matched.validate())),
                (
                    "experiment [match]",
                    text(crate::arena::experiment::parse(&experiment, "t.toml")),
                ),
                ("loop [selfplay]", text(looped.validate())),
            ]
        };
        for sub in commands {
            assert_eq!(command(sub, inside), Ok(()), "{sub:?} --komi {inside}");
            let e = command(sub, outside).unwrap_err();
            assert!(e.contains(&message), "{sub:?} --komi {outside}: {e}");
        }
        for (what, result) in config(inside) {
            assert_eq!(result, Ok(()), "{what} with komi {inside}");
        }
        for (what, result) in config(outside) {
            let e = result.unwrap_err();
            assert!(e.ends_with(&message), "{what} with komi {outside}: {e}");
        }
    }
}
