//! What an outside engine (a `gtp:COMMAND LINE` player) is, as a match folder records it:
//! its GTP `name` and `version` answers, and the SHA-256 of its program (the command's first
//! word, found as [`super::gtp::GtpClient::spawn`] finds it) and of every regular file its
//! command line names (networks, configs). The command text alone does not say which
//! engine played: the same `katago gtp -model net.bin.gz` can be another build or another
//! network tomorrow.
//!
//! The arena does not read an outside engine's visits: GTP's `genmove` answers a move only.
//! KataGo would report them through `kata-genmove_analyze`, but that is another command than
//! the `genmove` every recorded game was played with, and no KataGo is at hand to show that
//! its moves and strength stay the same; so nothing is asked. A record says
//! `reports_visits = false`, the games leave the side's `*_sims` column empty, and summaries
//! show the visits as not reported, not as 0.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};

use super::gtp::{find_program, split_command_line};

pub use crate::runs::folder::OutsideEngine;

/// An outside engine's answers to `name` and `version` (`None`: refused).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GtpAnswers {
    pub name: Option<String>,
    pub version: Option<String>,
}

/// What an outside engine's command line starts and reads, checksummed.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandFiles {
    pub program: String,
    pub program_sha256: String,
    pub files: BTreeMap<String, String>,
}

/// The command line of a `gtp:` spec; `None` for an in-process spec.
pub fn gtp_command(spec: &str) -> Option<String> {
    super::spec::player_spec(spec)
        .outside_command()
        .map(str::to_string)
}

/// The SHA-256 of the file at `path`, read in pieces (a network may be large), as lower-case
/// hex.
pub fn sha256_file(path: &Path) -> anyhow::Result<String> {
    use sha2::Digest;
    let mut file =
        std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// The words of a command line's arguments that may name a file: each argument, and the
/// value of a `key=value` argument (`-model=net.bin`, `model=net.bin`). A `-flag value` pair
/// is two words, so its value is an argument of its own.
fn file_candidates(args: &[String]) -> impl Iterator<Item = &str> {
    args.iter().flat_map(|a| {
        let value = a.split_once('=').map(|(_, v)| v).filter(|v| !v.is_empty());
        std::iter::once(a.as_str()).chain(value)
    })
}

/// Whether `path` is a regular file (a link is followed): a FIFO or a device is not read,
/// since reading one would block or never end.
fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The program and files of `command_line`, checksummed: the program as the GTP client
/// finds it, and every argument (or `key=value` value) that is an existing regular file,
/// relative names read from the working folder as the engine reads them. `None` for a
/// command line that does not start (no program, an unclosed quote): starting the engine
/// names that fault.
pub fn command_files(command_line: &str) -> anyhow::Result<Option<CommandFiles>> {
    let Ok(words) = split_command_line(command_line) else {
        return Ok(None);
    };
    let Some((program, args)) = words.split_first() else {
        return Ok(None);
    };
    let Some(found) = find_program(program) else {
        return Ok(None);
    };
    let program_sha256 = sha256_file(&found)?;
    let mut files = BTreeMap::new();
    for word in file_candidates(args) {
        let path = Path::new(word);
        if is_regular_file(path) && !files.contains_key(word) {
            files.insert(word.to_string(), sha256_file(path)?);
        }
    }
    Ok(Some(CommandFiles {
        program: found.display().to_string(),
        program_sha256,
        files,
    }))
}

/// [`command_files`] of every `gtp:` spec among `specs` that starts, keyed by spec.
pub fn specs_files<'a>(
    specs: impl IntoIterator<Item = &'a String>,
) -> anyhow::Result<BTreeMap<String, CommandFiles>> {
    let mut out = BTreeMap::new();
    for spec in specs {
        if let Some(command) = gtp_command(spec)
            && !out.contains_key(spec)
            && let Some(files) = command_files(&command)?
        {
            out.insert(spec.clone(), files);
        }
    }
    Ok(out)
}

/// Whether `a` and `b` record one engine: the same answers, program bytes and files (where
/// the program was found, and when it was first recorded, may differ).
pub fn same_engine(a: &OutsideEngine, b: &OutsideEngine) -> bool {
    (&a.name, &a.version, &a.program_sha256, &a.files)
        == (&b.name, &b.version, &b.program_sha256, &b.files)
}

impl OutsideEngine {
    /// The record of an engine that answered `answers` and starts and reads `files`.
    pub fn new(answers: GtpAnswers, files: CommandFiles) -> OutsideEngine {
        OutsideEngine {
            name: answers.name,
            version: answers.version,
            reports_visits: false,
            program: files.program,
            program_sha256: files.program_sha256,
            recorded_after_games: None,
            files: files.files,
        }
    }

    /// One line for summaries: name, version, the program and each file with its SHA-256.
    pub fn describe(&self) -> String {
        let answer = |a: &Option<String>| {
            a.as_ref()
                .map_or("refused".to_string(), |s| format!("{s:?}"))
        };
        let mut text = format!(
            "name {}, version {}; program `{}` sha256 {}",
            answer(&self.name),
            answer(&self.version),
            self.program,
            self.program_sha256
        );
        for (file, sum) in &self.files {
            text += &format!("; `{file}` sha256 {sum}");
        }
        if !self.reports_visits {
            text += "; visits a move not reported";
        }
        if let Some(n) = self.recorded_after_games {
            text += &format!(
                "; first recorded after {n} games (the earlier games' engine was not recorded)"
            );
        }
        text
    }
}

/// Every way `now` differs from the identity `was` recorded for `spec`: a program or file
/// whose checksum changed (or a file now gone), another `name` or `version` answer (`None`
/// for `now`'s answers: not asked, nothing played). Each names the file and both values.
pub fn differences(
    spec: &str,
    was: &OutsideEngine,
    now: &CommandFiles,
    answers: Option<&GtpAnswers>,
) -> Vec<String> {
    let mut out = Vec::new();
    if was.program_sha256 != now.program_sha256 {
        out.push(format!(
            "`{spec}`: program {} had sha256 {}, {} now has {}",
            was.program, was.program_sha256, now.program, now.program_sha256
        ));
    }
    for (file, sum) in &was.files {
        match now.files.get(file) {
            Some(new) if new != sum => {
                out.push(format!("`{spec}`: file {file} had sha256 {sum}, now {new}"))
            }
            Some(_) => {}
            None => out.push(format!(
                "`{spec}`: file {file} had sha256 {sum}, now it is not a readable file"
            )),
        }
    }
    if let Some(a) = answers {
        let show = |x: &Option<String>| {
            x.as_ref()
                .map_or("a refusal".to_string(), |s| format!("{s:?}"))
        };
        for (what, old, new) in [
            ("name", &was.name, &a.name),
            ("version", &was.version, &a.version),
        ] {
            if old != new {
                out.push(format!(
                    "`{spec}`: answered `{what}` with {}, now with {}",
                    show(old),
                    show(new)
                ));
            }
        }
    }
    out
}

/// Refuses (naming `header`) an outside engine that is no longer the one `recorded`: see
/// [`differences`]. `allowed` lets the run go on; the differences are returned so that the
/// caller dates them in the folder's history.
pub fn check_same(
    recorded: &BTreeMap<String, OutsideEngine>,
    now: &BTreeMap<String, CommandFiles>,
    answers: Option<&BTreeMap<String, GtpAnswers>>,
    header: &Path,
    allowed: bool,
) -> anyhow::Result<Vec<String>> {
    let mut all = Vec::new();
    for (spec, was) in recorded {
        if let Some(files) = now.get(spec) {
            let a = answers.and_then(|m| m.get(spec));
            all.extend(differences(spec, was, files, a));
        }
    }
    if !all.is_empty() && !allowed {
        bail!(
            "{}: an outside engine is not the one these games were played with: {}; resuming \
             would mix two engines: use a new --out folder, or pass --allow-engine-change to \
             go on (the change is dated in match.toml's history)",
            header.display(),
            all.join("; ")
        );
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_value_and_plain_arguments_name_files() {
        let args: Vec<String> = ["-model", "net.bin", "-config=a.cfg", "x=", "k=v=w"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let c: Vec<&str> = file_candidates(&args).collect();
        assert_eq!(
            c,
            vec![
                "-model",
                "net.bin",
                "-config=a.cfg",
                "a.cfg",
                "x=",
                "k=v=w",
                "v=w"
            ]
        );
    }

    /// Every difference is named with both values; a refused one needs the flag.
    #[test]
    fn differences_name_the_file_and_both_values() {
        let was = OutsideEngine {
            name: Some("KataGo".into()),
            version: Some("1.15.3".into()),
            reports_visits: false,
            program: "/usr/bin/katago".into(),
            program_sha256: "aa".into(),
            recorded_after_games: None,
            files: BTreeMap::from([
                ("net.bin.gz".to_string(), "11".to_string()),
                ("match.cfg".to_string(), "22".to_string()),
            ]),
        };
        let now = CommandFiles {
            program: "/opt/katago".into(),
            program_sha256: "aa".into(),
            files: BTreeMap::from([("net.bin.gz".to_string(), "33".to_string())]),
        };
        let answers = GtpAnswers {
            name: Some("KataGo".into()),
            version: None,
        };
        let d = differences("gtp:katago", &was, &now, Some(&answers));
        assert_eq!(
            d,
            vec![
                "`gtp:katago`: file match.cfg had sha256 22, now it is not a readable file",
                "`gtp:katago`: file net.bin.gz had sha256 11, now 33",
                "`gtp:katago`: answered `version` with \"1.15.3\", now with a refusal",
            ]
        );
        // The same program found elsewhere is the same program; unasked answers are not
        // compared.
        let same = CommandFiles {
            program: "/opt/katago".into(),
            program_sha256: "aa".into(),
            files: was.files.clone(),
        };
        assert!(differences("gtp:katago", &was, &same, None).is_empty());
        let recorded = BTreeMap::from([("gtp:katago".to_string(), was)]);
        let now = BTreeMap::from([("gtp:katago".to_string(), now)]);
        let header = Path::new("runs/x/match.toml");
        let e = check_same(&recorded, &now, None, header, false).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("runs/x/match.toml: an outside engine")
                && e.to_string().contains("--allow-engine-change"),
            "{e}"
        );
        assert_eq!(
            check_same(&recorded, &now, None, header, true)
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn sha256_of_a_known_text() {
        let dir = std::env::temp_dir().join(format!("akushu-outside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("abc");
        std::fs::write(&f, b"abc").unwrap();
        // FIPS 180-2's example: SHA-256("abc").
        assert_eq!(
            sha256_file(&f).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
