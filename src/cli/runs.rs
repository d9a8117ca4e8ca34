//! `akushu runs pack|unpack FOLDER...`: a finished run's SGFs as one archive and back
//! (`util::pack`). Each folder named is searched for games folders (a match, a self-play
//! run, a loop's generations); each has its `sgf/` packed into `sgf.tar.xz` beside its
//! `games.csv`, summaries and header, or unpacked again, byte for byte.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::util::pack::{self, Outcome};

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Pack each games folder under the folders named: its `sgf/` becomes one deterministic
    /// `sgf.tar.xz` (the same files always give the same bytes), checked against the files
    /// before they are removed. Every reader of run folders reads the packed form; a run is
    /// resumed only unpacked.
    Pack(FoldersArg),
    /// Unpack each games folder under the folders named: `sgf.tar.xz` becomes `sgf/` again
    /// with the very names and bytes packed (what `tar xJf sgf.tar.xz` gives too).
    Unpack(FoldersArg),
}

#[derive(Debug, Args)]
pub struct FoldersArg {
    /// Run folders, or folders holding them at any depth (e.g. `report/loops/gpu2`).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
}

pub fn run(cmd: RunsCommand) -> anyhow::Result<()> {
    let (dirs, packing) = match cmd {
        RunsCommand::Pack(a) => (a.dirs, true),
        RunsCommand::Unpack(a) => (a.dirs, false),
    };
    let mut folders = Vec::new();
    for dir in &dirs {
        let found = pack::games_folders(dir)?;
        if found.is_empty() {
            anyhow::bail!(
                "{}: no games folder (one holding {}/ or {}) in it",
                dir.display(),
                pack::SGF_DIR,
                pack::ARCHIVE
            );
        }
        folders.extend(found);
    }
    let (mut done, mut files) = (0usize, 0usize);
    for folder in &folders {
        let outcome = if packing {
            pack::pack(folder)?
        } else {
            pack::unpack(folder)?
        };
        match outcome {
            Outcome::Done {
                files: n,
                archive_bytes,
            } => {
                done += 1;
                files += n;
                crate::outln!(
                    "{}: {n} files {} {} ({archive_bytes} bytes)",
                    folder.display(),
                    if packing {
                        "packed into"
                    } else {
                        "unpacked from"
                    },
                    pack::ARCHIVE
                );
            }
            Outcome::Already => crate::outln!(
                "{}: already {}",
                folder.display(),
                if packing { "packed" } else { "unpacked" }
            ),
        }
    }
    crate::outln!(
        "{} of {} games folders {}, {files} files",
        done,
        folders.len(),
        if packing { "packed" } else { "unpacked" }
    );
    Ok(())
}
