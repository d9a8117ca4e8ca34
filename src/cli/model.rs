//! `akushu model export` / `akushu model import`: networks in and out of Python
//! (`net/inference/export.rs` has the file format; `scripts/akushu_model.py` reads and writes it).

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};

use crate::net::export::{MAX_EXPORT_BYTES, export_bytes, is_export, read_export, save_model};
use crate::net::model::{MODEL_KIND, weights_path};
use crate::util::checksum::Checksum;
use crate::util::output::FileKind;

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Every weight tensor of a model directory and its config as one numpy `.npz`
    /// (`np.load` reads it; `scripts/akushu_model.py` runs the network in numpy).
    #[command(after_help = "\
Examples:
  akushu model export models/cnn-human-5x32-gpu2 --out cnn.npz
  akushu model export models/default --out mlp.npz")]
    Export(ExportArgs),
    /// A model directory (config.json, model.bpk) from an export, e.g. one written back by
    /// `scripts/akushu_model.py` after training in PyTorch; its provenance names the file.
    #[command(after_help = "\
Examples:
  akushu model import cnn.npz --out models/cnn-imported")]
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Model directory (config.json + model.bpk).
    pub model: PathBuf,
    /// The `.npz` file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing file that is not an akushu model export.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// An export (`model export`, or `akushu_model.py`'s `save`).
    pub file: PathBuf,
    /// The model directory to create (absent or empty; never one with weights).
    #[arg(long)]
    pub out: PathBuf,
}

/// An export file, as the output rule knows it: a zip holding a `meta` array.
const EXPORT_KIND: FileKind = FileKind {
    name: "model export",
    signature: b"PK\x03\x04",
    mark: Some(is_export),
};

pub fn run(cmd: ModelCommand) -> anyhow::Result<()> {
    match cmd {
        ModelCommand::Export(args) => export(args),
        ModelCommand::Import(args) => import(args),
    }
}

fn export(args: ExportArgs) -> anyhow::Result<()> {
    crate::outln!("# {}", super::command_line());
    let bytes = export_bytes(&args.model)?;
    crate::util::output::write_file(
        &args.out,
        EXPORT_KIND,
        args.force,
        std::slice::from_ref(&args.model),
        |w| w.write_all(&bytes),
    )?;
    crate::outln!("wrote {} ({})", args.out.display(), Checksum::of(&bytes));
    Ok(())
}

fn import(args: ImportArgs) -> anyhow::Result<()> {
    crate::outln!("# {}", super::command_line());
    // The whole file is checked before anything is created: a bad export leaves no folder.
    let bytes = crate::util::fsio::read_regular_file(
        &args.file,
        MAX_EXPORT_BYTES,
        "bytes an export of the largest network akushu imports can take",
    )?;
    let (config, model) = read_export(&args.file, &bytes)?;
    let _lock = crate::util::commit::OutputLock::acquire(&args.out)?;
    // Shipped models are never overwritten: weights in the folder end the import.
    if weights_path(&args.out).exists() {
        bail!(
            "{} already holds a trained model: import into a new directory",
            args.out.display()
        );
    }
    crate::util::output::check_dir_output(
        &args.out,
        MODEL_KIND,
        false,
        std::slice::from_ref(&args.file),
    )?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    crate::util::output::mark_dir(&args.out, MODEL_KIND)
        .with_context(|| format!("marking {}", args.out.display()))?;
    save_model(&args.out, &config, &model)?;
    crate::outln!(
        "imported {} into {} ({}; training games unknown)",
        args.file.display(),
        args.out.display(),
        config.network_name()
    );
    Ok(())
}
