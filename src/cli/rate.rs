//! `akushu rate DIR...`: ratings of every player in the match folders under the given
//! folders (Bradley-Terry, anchored on GNU Go 3.8 level 10 = 0; `arena::rating`).

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct RateArgs {
    /// Match folders, or folders holding them at any depth (e.g. `report/runs`).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
}

pub fn run(args: RateArgs) -> anyhow::Result<()> {
    let (results, ratings) = crate::arena::rating::rate(&args.dirs)?;
    crate::outln!("{}", crate::arena::rating::table(&ratings, &results));
    Ok(())
}
